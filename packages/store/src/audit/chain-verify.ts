import { type ChainEntry, type Checkpoint, GENESIS_HASH } from '@hitl/protocol';
import { entryHash } from './chain-hash.js';

/** What checking a chain found: every entry fits, or the first `seq` that does not and why. */
export type ChainCheck = { ok: true; count: number } | { ok: false; seq: number; problem: string };

/**
 * Checks entries in the order given against each other: seq counts from 1 with no gap, each
 * `prevHash` is the hash before it (64 zeros for the first) and each `hash` is recomputed from its
 * record. With a checkpoint, the entries must reach its `seq` and that entry's hash must be its `hash`
 * (entries after it are not checked). Pure: the caller checks the checkpoint's signature.
 */
export function verifyChain(entries: Iterable<ChainEntry>, checkpoint?: Checkpoint): ChainCheck {
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  for (const entry of entries) {
    if (checkpoint && expectedSeq > checkpoint.seq) break;
    const seq = expectedSeq;
    if (entry.seq !== seq)
      return { ok: false, seq, problem: `entry ${seq} is missing (found seq ${entry.seq})` };
    if (entry.prevHash !== prevHash) {
      return { ok: false, seq, problem: `prevHash does not match the hash of entry ${seq - 1}` };
    }
    const hash = entryHash(prevHash, entry.record);
    if (entry.hash !== hash) return { ok: false, seq, problem: 'hash does not match its record' };
    prevHash = hash;
    expectedSeq++;
  }
  const count = expectedSeq - 1;
  if (checkpoint) {
    if (count < checkpoint.seq) {
      return {
        ok: false,
        seq: count + 1,
        problem: `the checkpoint names seq ${checkpoint.seq}; entries end at ${count}`,
      };
    }
    if (prevHash !== checkpoint.hash) {
      return { ok: false, seq: checkpoint.seq, problem: "the checkpoint's hash is not this entry's hash" };
    }
  }
  return { ok: true, count };
}
