import type { RevocationBody } from '@hitl/protocol';
import { RedisRevocationStore } from '@hitl/store';
import { Cluster, Redis } from 'ioredis';
import type { Config } from '../config.js';

/** What a revocation recorded (`issuedUpTo`: the last second of issue revoked, for `user`). */
export type RevocationReceipt = { jti: string } | { user: string; issuedUpTo: number };

/**
 * Records a revocation straight in the shared store (distributed mode): what `hitl token revoke`
 * does when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set. Every node hears of it through the
 * revocation channel. Returns `undefined` when there is no shared store to write.
 */
export async function revokeInSharedStore(
  config: Config,
  body: RevocationBody,
  now: number = Date.now(),
): Promise<RevocationReceipt | undefined> {
  if (!config.redisUrl && !config.redisClusterNodes) return undefined;
  const options = { maxRetriesPerRequest: 2, connectTimeout: 5000 };
  const client = config.redisClusterNodes
    ? new Cluster(config.redisClusterNodes, { redisOptions: options })
    : new Redis(config.redisUrl ?? '', options);
  client.on('error', () => {});
  const store = new RedisRevocationStore({ redis: client });
  try {
    if ('jti' in body) {
      await store.revokeToken(body.jti);
      return { jti: body.jti };
    }
    const issuedUpTo = Math.floor(now / 1000);
    await store.revokeUser(body.user, issuedUpTo);
    return { user: body.user, issuedUpTo };
  } finally {
    await store.close();
    await client.quit().catch(() => client.disconnect());
  }
}
