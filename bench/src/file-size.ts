/**
 * `node bench/dist/file-size.js [count]` (default 10000): how many bytes of the embedded state file
 * one inquiry takes. Creates `count` pending inquiries (each with an idempotency key, over 20 users) on
 * a `SqliteInquiryStore` in a temporary directory, the way a node opens it, then answers them all;
 * after each step the WAL is checkpointed into the file, and the growth of `hitl.db` over the empty
 * file is divided by `count`. Prints one `BENCH scenario=file-size ...` line; removes the directory.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inquiryDatabasePath, openStateDatabase, SqliteInquiryStore } from '@hitl/store';
import { answered, sampleInquiry } from '@hitl/store/testing';
import { formatLine } from './core/summary.js';

const KB = 1024;
const USERS = 20;

function countArg(raw: string | undefined): number {
  if (raw === undefined) return 10_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write('usage: node bench/dist/file-size.js [count]\n');
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  const count = countArg(process.argv[2]);
  const dir = mkdtempSync(join(tmpdir(), 'hitl-file-size-'));
  const path = inquiryDatabasePath(dir);
  const database = openStateDatabase(path);
  const store = new SqliteInquiryStore({ database });
  /** The file's size once every commit is in it (the WAL checkpointed and truncated). */
  const settledBytes = () => {
    database.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return statSync(path).size;
  };
  const walBytes = () => statSync(`${path}-wal`).size;
  try {
    const empty = settledBytes();
    const ids: string[] = [];
    let bodyBytes = 0;
    for (let i = 0; i < count; i++) {
      const inquiry = sampleInquiry({
        userId: `user-${i % USERS}`,
        question: `Deploy build ${4800 + i} to production now? The migration adds two columns.`,
        idempotencyKey: `deploy-${i}-${'k'.repeat(24)}`,
      });
      const created = await store.create(inquiry);
      if (created.kind !== 'ok') throw new Error(`create ${i}: ${created.kind}`);
      bodyBytes += JSON.stringify(created.inquiry).length;
      ids.push(inquiry.inquiryId);
    }
    const walPending = walBytes();
    const pending = settledBytes();
    for (const id of ids) {
      const result = await store.resolve(id, answered('approve', 'phone-1'));
      if (result.kind !== 'won') throw new Error(`resolve ${id}: ${result.kind}`);
    }
    const ended = settledBytes();
    const per = (bytes: number) => (bytes - empty) / count / KB;
    process.stdout.write(
      `${formatLine({
        scenario: 'file-size',
        fields: {
          count,
          body_bytes: bodyBytes / count,
          empty_kb: empty / KB,
          pending_kb_per_inquiry: per(pending),
          answered_kb_per_inquiry: per(ended),
          answered_mb_per_100k: (per(ended) * 100_000) / KB,
          wal_mb_before_checkpoint: walPending / KB / KB,
        },
      })}\n`,
    );
  } finally {
    await store.close();
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
