import type { RevocationBody, TokenClaims } from '@hitl/protocol';
import { type Backend, type Config, type Logger, openBackend } from '@hitl/runtime';
import { pino } from 'pino';
import { RevocationCache } from './revocation-cache.js';

/**
 * The revocation list of the nodes' shared store, kept current like a node keeps it: for a process
 * beside the nodes that checks their tokens (`hitl decide`). `undefined` without a shared store.
 */
export async function followSharedRevocations(
  config: Config,
  logger: Logger,
): Promise<{ isRevoked(claims: TokenClaims): boolean; close(): Promise<void> } | undefined> {
  const backend = sharedBackend(config, logger);
  if (!backend) return undefined;
  const cache = new RevocationCache(backend.revocations, logger, config.revocationPollMs);
  backend.shutdown.add('revocation feed', () => cache.stop());
  try {
    await cache.start();
  } catch (error) {
    await backend.shutdown.closeAll();
    throw error;
  }
  return {
    isRevoked: (claims) => cache.isRevoked(claims),
    close: () => backend.shutdown.closeAll(),
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
  const backend = sharedBackend(config, pino({ level: 'silent' }));
  if (!backend) return undefined;
  const store = backend.revocations;
  try {
    if ('jti' in body) {
      await store.revokeToken(body.jti);
      return { jti: body.jti };
    }
    const issuedUpTo = Math.floor(now / 1000);
    await store.revokeUser(body.user, issuedUpTo);
    return { user: body.user, issuedUpTo };
  } finally {
    await backend.shutdown.closeAll();
  }
}

/** The nodes' shared backend, or `undefined` without one (an embedded node's file is its own). */
function sharedBackend(config: Config, logger: Logger): Backend | undefined {
  if (!config.redisUrl && !config.redisClusterNodes) return undefined;
  return openBackend(config, { logger });
}
