import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, readPrivateFile, safeStateDir } from '@hitl/runtime';
import { type AuditKey, auditKeyFromSeed, newAuditKeySeed } from '@hitl/store';

/**
 * The Ed25519 key that signs audit checkpoints: `HITL_AUDIT_KEY` (32 bytes, base64url; required with
 * Redis, where every node must sign with the same key), else `<state dir>/audit-key`, created `0600`
 * on the first embedded start and checked like the secret on every later one.
 */
export async function loadAuditKey(
  configured: string | undefined,
  stateDir: string,
  distributed: boolean,
): Promise<AuditKey> {
  if (configured) return auditKeyFromSeed(configured);
  // Every node signs with one key; kept in Redis, it would sign whatever Redis holds.
  if (distributed) {
    throw new ConfigError(
      'invalid configuration:\n  HITL_AUDIT_KEY: required when REDIS_URL or REDIS_CLUSTER_NODES is set (every node signs audit checkpoints with it; make one: hitl audit keygen)',
    );
  }
  await safeStateDir(stateDir);
  const path = join(stateDir, 'audit-key');
  const existing = await readPrivateFile(path, 'the audit key');
  if (existing !== null) return auditKeyFromSeed(existing.trim());
  const seed = newAuditKeySeed();
  // `wx`: created here or not at all (never written through a file or link that appeared meanwhile).
  await writeFile(path, `${seed}\n`, { mode: 0o600, flag: 'wx' });
  return auditKeyFromSeed(seed);
}
