import { randomFillSync } from 'node:crypto';
import { decodeTime, monotonicFactory } from 'ulid';

/**
 * Random bytes for ids, drawn from the CSPRNG 4 KB at a time: ulid's own generator asks it for one
 * byte per character (16 calls per id, ~2% of a node's CPU at full load; bench/results/HISTORY.md).
 */
const pool = new Uint8Array(4096);
let used = pool.length;
function pooledRandom(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return (pool[used++] as number) / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/**
 * A new inquiry id: a ULID, so ids sort lexicographically in creation order (monotonic within one
 * process, even inside one millisecond). Lists page newest-first on this order.
 *
 * @example
 * const inquiryId = newInquiryId(); // "01J9Z3K7Q5N2V8R4T6W0X1Y2Z3"
 */
export function newInquiryId(): string {
  return nextUlid();
}

/** When the inquiry with this id was created (epoch ms), or undefined for an id that is not a ULID. */
export function inquiryIdTime(inquiryId: string): number | undefined {
  try {
    return decodeTime(inquiryId);
  } catch {
    return undefined;
  }
}
