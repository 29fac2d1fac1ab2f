import { createHash } from 'node:crypto';
import { type AuditRecord, type ChainEntry, GENESIS_HASH } from '@hitl/protocol';
import canonicalizeModule from 'canonicalize';

// A CommonJS module whose typings declare an ES default: at run time the default import is the function.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** RFC 8785 (JCS) canonical JSON: the same data gives the same text whatever the key order. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}

/** An entry's hash: lowercase hex SHA-256 of the UTF-8 bytes of `prevHash + "\n" + JCS(record)`. */
export function entryHash(prevHash: string, record: AuditRecord): string {
  return createHash('sha256')
    .update(`${prevHash}\n${canonicalJson(record)}`, 'utf8')
    .digest('hex');
}

/** The head a chain's entries end in (`seq` 0 and {@link GENESIS_HASH} when it has none). */
export interface ChainHead {
  seq: number;
  hash: string;
}

export const EMPTY_HEAD: ChainHead = { seq: 0, hash: GENESIS_HASH };

/** The entries `records` make when appended, in order, after `head`. */
export function chainAfter(head: ChainHead, records: readonly AuditRecord[]): ChainEntry[] {
  let { seq, hash: prevHash } = head;
  return records.map((record) => {
    const hash = entryHash(prevHash, record);
    const entry = { seq: ++seq, prevHash, hash, record };
    prevHash = hash;
    return entry;
  });
}
