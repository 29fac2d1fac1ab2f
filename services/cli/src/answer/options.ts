import { DeviceHandshakeSchema } from '@hitl/protocol';

/** `hitl answer`'s options once checked. */
export interface AnswerOptions {
  /** The node's origin. */
  url: string;
  token: string;
  deviceName: string;
}

const FLAG: Record<string, string> = { token: '--token', deviceName: '--name' };

/** The node URL as an origin, or why it is not one. */
export function nodeOrigin(value: string): { ok: true; origin: string } | { ok: false; problem: string } {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return {
      ok: false,
      problem: `--url: "${value}" is not an http(s) URL of a node (e.g. http://127.0.0.1:8787)`,
    };
  }
  return { ok: true, origin: url.origin };
}

/**
 * Checks the options before anything connects: the URL, then the token and name with the protocol's
 * own handshake schema (what the node will check), naming the bad option.
 */
export function parseAnswerOptions(raw: {
  url: string;
  token?: string | undefined;
  name: string;
}): { ok: true; options: AnswerOptions } | { ok: false; problem: string } {
  const url = nodeOrigin(raw.url);
  if (!url.ok) return url;
  const token = raw.token?.trim() ?? '';
  if (!token) return { ok: false, problem: '--token: give a device token, or set HITL_DEVICE_TOKEN' };
  const handshake = DeviceHandshakeSchema.safeParse({ token, deviceName: raw.name.trim() });
  if (!handshake.success) {
    const issue = handshake.error.issues[0];
    const field = String(issue?.path[0] ?? 'options');
    return { ok: false, problem: `${FLAG[field] ?? field}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, options: { url: url.origin, token, deviceName: raw.name.trim() } };
}
