import {
  type ChainEntry,
  ChainEntrySchema,
  type SignedCheckpoint,
  SignedCheckpointSchema,
} from '@hitl/protocol';
import { checkpointSignatureHolds, verifyChain } from '@hitl/store';

/** What `hitl audit verify` found, and the key it checked the checkpoint with. */
export type ExportCheck =
  | { ok: true; count: number; publicKey: string }
  | { ok: false; seq: number; problem: string; publicKey?: string };

/**
 * Checks a chain against its signed checkpoint: the signature (with `pinnedKey` when given, else the
 * key the checkpoint names), then every entry up to the checkpoint's seq. Pure over its input.
 */
export function verifyAgainstCheckpoint(
  entries: Iterable<ChainEntry>,
  signed: SignedCheckpoint,
  pinnedKey?: string,
): ExportCheck {
  const publicKey = pinnedKey ?? signed.publicKey;
  if (pinnedKey !== undefined && pinnedKey !== signed.publicKey) {
    return {
      ok: false,
      seq: signed.checkpoint.seq,
      problem: `the checkpoint names key ${signed.publicKey}, not the pinned one`,
      publicKey,
    };
  }
  if (!checkpointSignatureHolds(signed, publicKey)) {
    return {
      ok: false,
      seq: signed.checkpoint.seq,
      problem: "the checkpoint's signature does not hold",
      publicKey,
    };
  }
  const check = verifyChain(entries, signed.checkpoint);
  return check.ok ? { ok: true, count: check.count, publicKey } : { ...check, publicKey };
}

/**
 * Checks an export's text: JSON Lines of entries, then the checkpoint body as its last line. A line
 * that is not an entry fails at the seq its place gives it.
 */
export function verifyExport(text: string, pinnedKey?: string): ExportCheck {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const last = lines.pop();
  const signed = last === undefined ? undefined : parseJson(last, SignedCheckpointSchema);
  if (!signed) return { ok: false, seq: 0, problem: 'the last line is not a signed checkpoint' };
  const entries: ChainEntry[] = [];
  for (const [index, line] of lines.entries()) {
    const entry = parseJson(line, ChainEntrySchema);
    if (!entry) {
      if (index + 1 > signed.checkpoint.seq) break;
      return { ok: false, seq: index + 1, problem: `line ${index + 1} is not a chain entry` };
    }
    entries.push(entry as ChainEntry);
  }
  return verifyAgainstCheckpoint(entries, signed, pinnedKey);
}

function parseJson<T>(
  line: string,
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
