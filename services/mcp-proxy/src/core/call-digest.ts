import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// A CommonJS module whose typings declare an ES default: at run time the default import is the function.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** The identity of one tool call: who, against which backend, which tool, with which arguments. */
export interface CallIdentity {
  userId: string;
  /** Stable id of the backend (`cmd:<command>` or `url:<url>`), so grants never cross backends. */
  backendId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** RFC 8785 canonical JSON: the same data gives the same text whatever the key order. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value ?? {});
  if (text === undefined) throw new TypeError('arguments cannot be represented as JSON');
  return text;
}

/**
 * sha256 (hex) over the canonical JSON of (user, backend, tool, arguments): the value an approval
 * is bound to. Any change to any part gives another digest.
 */
export function callDigest(call: CallIdentity): string {
  const text = canonicalJson([call.userId, call.backendId, call.tool, call.arguments ?? {}]);
  return createHash('sha256').update(text).digest('hex');
}
