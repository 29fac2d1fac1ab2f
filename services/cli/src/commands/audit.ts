import { readFile } from 'node:fs/promises';
import type { ChainEntry } from '@hitl/protocol';
import { auditKeyFromSeed, newAuditKeySeed } from '@hitl/store';
import type { Command } from 'commander';
import { fetchCheckpoint, fetchEntries } from '../audit/audit-client.js';
import { type ExportCheck, verifyAgainstCheckpoint, verifyExport } from '../audit/verify-export.js';

interface NodeOptions {
  url?: string;
  token?: string;
}

/** Exit codes: 0 the chain verifies, 1 it does not (a seq named), 2 it could not be read. */
function fail(command: string, error: unknown): never {
  process.stderr.write(`hitl audit ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}

function nodeOf(options: NodeOptions, command: string): { url: string; token: string } {
  if (!options.url || !options.token) fail(command, 'needs --url <node> and --token <ops token>');
  return { url: options.url, token: options.token };
}

/** Prints the outcome: the key used, then the count (exit 0) or the first seq that does not fit (exit 1). */
function report(check: ExportCheck): never {
  if (check.publicKey) process.stdout.write(`public key: ${check.publicKey}\n`);
  if (check.ok) {
    process.stdout.write(`ok: ${check.count} entries verified against the signed checkpoint\n`);
    process.exit(0);
  }
  process.stdout.write(`FAILED at seq ${check.seq}: ${check.problem}\n`);
  process.exit(1);
}

/**
 * `hitl audit export | verify | keygen`: the audit chain as an auditor takes it. `export` writes JSON
 * Lines to stdout (entries 1..checkpoint.seq, then the checkpoint body exactly as the node returned it,
 * which was fetched first); `verify` checks a node (`--url --token`) or an export (`--file`) with
 * nothing but the public key (`--public-key` pins it; else the checkpoint's own is used and printed).
 */
export function registerAudit(program: Command): void {
  const audit = program.command('audit').description('The tamper-evident audit chain: export and verify');

  audit
    .command('export')
    .description('Write the chain up to a fresh signed checkpoint to stdout, as JSON Lines')
    .option('--url <node>', 'the node, e.g. http://127.0.0.1:8787')
    .option('--token <ops token>', 'an ops token')
    .action(async (options: NodeOptions) => {
      const { url, token } = nodeOf(options, 'export');
      try {
        const { signed, body } = await fetchCheckpoint(url, token);
        let count = 0;
        for await (const entry of fetchEntries(url, token, signed.checkpoint.seq)) {
          process.stdout.write(`${JSON.stringify(entry)}\n`);
          count++;
        }
        if (count !== signed.checkpoint.seq) {
          throw new Error(
            `the node returned ${count} entries for a checkpoint at seq ${signed.checkpoint.seq}`,
          );
        }
        process.stdout.write(`${body.trim()}\n`);
        process.stderr.write(`exported ${count} entries and the checkpoint\n`);
      } catch (error) {
        fail('export', error);
      }
    });

  audit
    .command('verify')
    .description(
      'Recompute every hash and check the signed checkpoint (exit 0, or 1 naming the first bad seq)',
    )
    .option('--url <node>', 'verify a live node')
    .option('--token <ops token>', 'an ops token for --url')
    .option('--file <export>', 'verify an export written by `hitl audit export`')
    .option('--public-key <base64url>', 'the deployment key to trust (else the checkpoint names it)')
    .action(async (options: NodeOptions & { file?: string; publicKey?: string }) => {
      let check: ExportCheck;
      try {
        if (options.file) {
          check = verifyExport(await readFile(options.file, 'utf8'), options.publicKey);
        } else {
          const { url, token } = nodeOf(options, 'verify');
          const { signed } = await fetchCheckpoint(url, token);
          const entries: ChainEntry[] = [];
          for await (const entry of fetchEntries(url, token, signed.checkpoint.seq)) entries.push(entry);
          check = verifyAgainstCheckpoint(entries, signed, options.publicKey);
        }
      } catch (error) {
        fail('verify', error);
      }
      report(check);
    });

  audit
    .command('keygen')
    .description(
      'Make a checkpoint signing key: prints HITL_AUDIT_KEY=<seed> (keep it secret) and its public key',
    )
    .action(() => {
      const seed = newAuditKeySeed();
      process.stdout.write(`HITL_AUDIT_KEY=${seed}\n`);
      process.stderr.write(`public key (give this to auditors): ${auditKeyFromSeed(seed).publicKey}\n`);
    });
}
