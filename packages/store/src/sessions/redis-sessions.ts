import { RedisBackedStore, type RedisStoreOptions } from '../redis/redis-backed-store.js';
import { decodeSession, MAX_SESSIONS_PER_USER, type McpSession, type McpSessionStore } from './sessions.js';

export type RedisSessionOptions = RedisStoreOptions;

type Replies = [Error | null, unknown][] | null;

function checked(replies: Replies, what: string): unknown[] {
  const failed = replies?.find(([error]) => error);
  if (!replies || failed) throw failed?.[0] ?? new Error(`${what} aborted`);
  return replies.map(([, value]) => value);
}

/**
 * Sessions shared by every node. Both keys of a user's session share the user's hash tag
 * (`{u:<userId>}`), so each step is one MULTI even on a Cluster:
 * `<prefix>user:{u:<id>}:mcp-session:<sessionId>` holds the session's JSON and expires with it
 * (PXAT, moved by a renewal); `<prefix>user:{u:<id>}:mcp-sessions` scores each session id by its
 * expiry, so a create drops the expired ones and, past the cap, those closest to expiry.
 * Another user's token names a key that does not exist.
 */
export class RedisSessionStore extends RedisBackedStore implements McpSessionStore {
  async create(session: McpSession): Promise<void> {
    const { userId, sessionId } = session;
    const index = this.keys.userSessions(userId);
    const at = String(session.expiresAt);
    const [, , , , , count] = checked(
      await this.redis
        .multi()
        .set(this.keys.session(userId, sessionId), JSON.stringify(session), 'PXAT', at)
        .zremrangebyscore(index, '-inf', String(Date.now()))
        .zadd(index, at, sessionId)
        .pexpireat(index, at, 'NX')
        .pexpireat(index, at, 'GT')
        .zcard(index)
        .exec(),
      'session create',
    );
    const over = Number(count) - MAX_SESSIONS_PER_USER;
    if (over <= 0) return;
    // Past the cap: the sessions closest to expiry end (a second step; a race only ends one more).
    const popped = (await this.redis.zpopmin(index, over)).filter((_, i) => i % 2 === 0);
    if (popped.length > 0) await this.redis.del(...popped.map((id) => this.keys.session(userId, id)));
  }

  async get(sessionId: string, userId: string): Promise<McpSession | null> {
    const key = this.keys.session(userId, sessionId);
    // The expiry is the key's own (a renewal moves it), read in the same round trip.
    const [body, pttl] = checked(await this.redis.multi().get(key).pttl(key).exec(), 'session read');
    const session = decodeSession(body as string | null);
    if (!session || typeof pttl !== 'number' || pttl <= 0) return null;
    return { ...session, expiresAt: Date.now() + pttl };
  }

  async renew(sessionId: string, userId: string, expiresAt: number): Promise<boolean> {
    const index = this.keys.userSessions(userId);
    const at = String(expiresAt);
    const [moved] = checked(
      await this.redis
        .multi()
        .pexpireat(this.keys.session(userId, sessionId), at)
        .zadd(index, 'XX', at, sessionId)
        .pexpireat(index, at, 'GT')
        .exec(),
      'session renew',
    );
    return moved === 1;
  }

  async remove(sessionId: string, userId: string): Promise<boolean> {
    const [deleted] = checked(
      await this.redis
        .multi()
        .del(this.keys.session(userId, sessionId))
        .zrem(this.keys.userSessions(userId), sessionId)
        .exec(),
      'session remove',
    );
    return deleted === 1;
  }

  async close(): Promise<void> {
    await this.release();
  }
}
