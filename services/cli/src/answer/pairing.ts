import { ErrorBodySchema, PairingClaimResultSchema, pairingCodeOf } from '@hitl/protocol';
import { nodeOrigin } from './options.js';

/** Where `--pair` points: the node (the link's origin, else `--url`) and the code. */
export interface PairTarget {
  origin: string;
  code: string;
}

/**
 * `--pair <url or code>`: a pairing link (`https://node/pair#ABCD2345`, as the QR code holds it)
 * names its node; a bare code (`ABCD-2345`) is claimed at `fallbackUrl` (`--url`, `HITL_URL`, or the
 * default).
 */
export function parsePairOption(
  value: string,
  fallbackUrl: string,
): { ok: true; target: PairTarget } | { ok: false; problem: string } {
  const code = pairingCodeOf(value);
  if (!code) {
    return {
      ok: false,
      problem: `--pair: "${value}" is neither a pairing link (…/pair#ABCD2345) nor an 8-character code`,
    };
  }
  const text = value.trim();
  const origin = nodeOrigin(URL.canParse(text) ? text : fallbackUrl);
  return origin.ok ? { ok: true, target: { origin: origin.origin, code } } : origin;
}

/**
 * Trades the code for a device token of its own (`POST /api/pairings/claim`). The node
 * answers a wrong, used and expired code alike, so the problem says all three.
 */
export async function claimPairing(
  target: PairTarget,
  deviceName: string,
  fetchFn: typeof fetch = fetch,
): Promise<{ ok: true; token: string; user: string } | { ok: false; problem: string }> {
  const response = await fetchFn(`${target.origin}/api/pairings/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: target.code, deviceName }),
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) {
    const claimed = PairingClaimResultSchema.safeParse(body);
    if (claimed.success) return { ok: true, token: claimed.data.token, user: claimed.data.user };
    return { ok: false, problem: 'the node answered the pairing with something unexpected' };
  }
  const error = ErrorBodySchema.safeParse(body);
  const code = error.success ? error.data.error.code : undefined;
  if (code === 'invalid_pairing') {
    return {
      ok: false,
      problem: 'the pairing code did not work (mistyped, used already, or expired); make a new one',
    };
  }
  if (code === 'rate_limited') {
    return { ok: false, problem: 'too many wrong pairing codes from here; wait a minute and try again' };
  }
  return {
    ok: false,
    problem: error.success ? error.data.error.message : `the node answered HTTP ${response.status}`,
  };
}
