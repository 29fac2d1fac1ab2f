import {
  PLACEHOLDER_VAPID_SUBJECT,
  readPrivateFile,
  SecretFileError,
  safeStateDir,
  type VapidKeys,
  VapidKeysSchema,
  vapidKeysPath,
  vapidProblems,
  writeVapidFile,
} from '@hitl/runtime';
import { sharedVapidKeys } from '@hitl/store';
import type { Cluster, Redis } from 'ioredis';
import webpush from 'web-push';

/** Where the node's VAPID keys came from. */
export type VapidSource = 'env' | 'redis' | 'file';

/** A fresh key pair (web-push makes it) with the placeholder contact. */
function generate(): VapidKeys {
  return { ...webpush.generateVAPIDKeys(), subject: PLACEHOLDER_VAPID_SUBJECT };
}

function parseStored(text: string, where: string): VapidKeys {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretFileError(`${where} is not JSON; fix it, or remove it to make a new key pair`);
  }
  const parsed = VapidKeysSchema.safeParse(json);
  const problems = parsed.success
    ? vapidProblems(parsed.data)
    : [{ field: 'publicKey', message: 'expected {"publicKey", "privateKey", "subject"}' }];
  if (!parsed.success || problems.length > 0) {
    const list = problems.map((p) => `${p.field}: ${p.message}`).join('; ');
    throw new SecretFileError(
      `${where} holds unusable VAPID keys (${list}); fix it, or remove it to make a new pair (browsers then subscribe again)`,
    );
  }
  return parsed.data;
}

/**
 * The node's VAPID keys: the configured ones (`HITL_VAPID_*`); else, with Redis, the
 * pair the first node wrote there (every node must sign with the key browsers subscribed with);
 * else `vapid.json` in the state folder, created 0600 on the first start with the same checks as
 * the secret file (a file others can read, a link, or a bad pair stops the start).
 * @throws SecretFileError saying what to fix
 */
export async function loadVapidKeys(
  configured: VapidKeys | undefined,
  options: { stateDir: string; redis?: Redis | Cluster },
): Promise<{ keys: VapidKeys; source: VapidSource; created: boolean }> {
  if (configured) return { keys: configured, source: 'env', created: false };
  if (options.redis) {
    const candidate = generate();
    const stored = await sharedVapidKeys(options.redis, JSON.stringify(candidate));
    const keys = parseStored(stored, 'the VAPID keys in Redis (hitl:push:vapid)');
    return { keys, source: 'redis', created: keys.privateKey === candidate.privateKey };
  }
  await safeStateDir(options.stateDir);
  const path = vapidKeysPath(options.stateDir);
  const existing = await readPrivateFile(path, 'the VAPID keys');
  if (existing !== null) return { keys: parseStored(existing, path), source: 'file', created: false };
  const keys = generate();
  await writeVapidFile(path, keys);
  return { keys, source: 'file', created: true };
}
