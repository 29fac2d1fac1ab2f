import type { Cluster, Redis } from 'ioredis';
import { storeKeys } from '../redis/keys.js';

/**
 * The VAPID key pair all nodes share in distributed mode: `candidate` (a fresh pair, JSON) is
 * written only when no node wrote one before (`SET NX`); every node then uses the stored one, so a
 * browser subscribed through any node accepts pushes from every node.
 * @returns the stored pair's JSON (the candidate when this call wrote it)
 */
export async function sharedVapidKeys(
  redis: Redis | Cluster,
  candidate: string,
  prefix = 'hitl:',
): Promise<string> {
  const key = storeKeys(prefix).vapidKeys;
  await redis.set(key, candidate, 'NX');
  const stored = await redis.get(key);
  if (stored === null) throw new Error(`${key} vanished right after it was written`);
  return stored;
}
