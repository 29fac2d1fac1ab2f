import type { RevocationBody, TokenClaims } from '@hitl/protocol';
import { connectSharedRedis, RedisRevocationStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { RevocationCache } from './revocation-cache.js';

/**
 * The revocation list of the nodes' shared store, kept current like a node keeps it: for a process
 * beside the nodes that checks their tokens (`hitl decide`). `undefined` without a shared store.
 */
export async function followSharedRevocations(
  config: Config,
  logger: Logger,
): Promise<{ isRevoked(claims: TokenClaims): boolean; close(): Promise<void> } | undefined> {
  const client = connectSharedRedis(config);
  if (!client) return undefined;
  const store = new RedisRevocationStore({ redis: client });
  const cache = new RevocationCache(store, logger, config.revocationPollMs);
  await cache.start();
  return {
    isRevoked: (claims) => cache.isRevoked(claims),
    close: async () => {
      cache.stop();
      await store.close();
      await client.quit().catch(() => client.disconnect());
    },
  };
}

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
  const client = connectSharedRedis(config);
  if (!client) return undefined;
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
