import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectSharedRedis,
  MemoryProxyStore,
  openStateDatabase,
  RedisProxyStore,
  SqliteProxyStore,
} from '../src/index.js';
import { runProxyStoreContract } from '../src/testing/contract-proxy.js';
import {
  startRedisCluster,
  startRedisServer,
  type TestRedisCluster,
  type TestRedisServer,
} from '../src/testing/index.js';

/**
 * A proxy state file in `stateDir` as the build at schema `version` left it: its schema_versions row,
 * its proxy_grants table, then `schema` (the rest of that version's tables).
 */
function fileAtVersion(version: number, schema: string) {
  const path = join(stateDir, `v${version}.db`);
  const db = openStateDatabase(path);
  db.db.exec(`
    CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL);
    INSERT INTO schema_versions VALUES ('proxy', ${version});
    CREATE TABLE proxy_grants (grant_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, digest TEXT NOT NULL,
      state TEXT NOT NULL, expires_at INTEGER NOT NULL, remove_at INTEGER NOT NULL) WITHOUT ROWID;
    ${schema}
  `);
  return { path, db };
}

let redis: TestRedisServer;
let cluster: TestRedisCluster;
/**
 * Cluster clients as the proxy opens one with REDIS_CLUSTER_NODES (the store does not own them): one
 * per store the contract makes, each closed after the file (a client left open keeps refreshing its
 * slots on timers, into the next file's fake clock).
 */
const clusterClients: Redis[] = [];
beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
}, 60_000);
const stateDir = mkdtempSync(join(tmpdir(), 'proxy-store-'));
afterAll(async () => {
  for (const client of clusterClients) client.disconnect();
  await Promise.all([redis?.stop(), cluster?.stop()]);
  rmSync(stateDir, { recursive: true, force: true });
});

runProxyStoreContract('memory', async (options) => new MemoryProxyStore(Date, options?.waitPollMs));
runProxyStoreContract(
  'redis',
  async (options) =>
    new RedisProxyStore({ redis: redis.url, prefix: `test:${randomUUID()}:proxy:`, ...options }),
);
// The same scripts on a 3-master Cluster: each keeps its keys in one slot (hash tags, store/keys.ts).
runProxyStoreContract('redis cluster', async () => {
  const clusterClient = connectSharedRedis({ redisClusterNodes: cluster.nodes }) as Redis;
  clusterClients.push(clusterClient);
  return new RedisProxyStore({ redis: clusterClient, prefix: `test:${randomUUID()}:proxy:` });
});
runProxyStoreContract(
  'sqlite',
  async (options) => new SqliteProxyStore({ path: join(stateDir, `${randomUUID()}.db`), ...options }),
);

describe('SqliteProxyStore across a reopen', () => {
  it('keeps used grants used and finished operations finished', async () => {
    const path = join(stateDir, 'reopen.db');
    const now = Date.now();
    const first = new SqliteProxyStore({ path });
    await first.createGrant({ grantId: 'g1', userId: 'u', digest: 'd', expiresAt: now + 60_000 });
    await first.decideGrant('g1', 'approved', now);
    expect(await first.consumeGrant('g1', 'd', now)).toBe('ok');
    await first.createGrant({ grantId: 'g2', userId: 'u', digest: 'd', expiresAt: now + 60_000 });
    await first.decideGrant('g2', 'approved', now);
    const op = { userId: 'u', key: 'k', digest: 'd', state: 'in_progress' as const, owner: 'o' };
    expect(await first.beginOperation(op, 60_000, now)).toEqual({ started: true });
    expect(
      await first.finishOperation('u', 'k', 'o', { content: [{ type: 'text', text: 'done' }] }, 60_000, now),
    ).toBe(true);
    await first.close();

    const second = new SqliteProxyStore({ path });
    try {
      expect(await second.consumeGrant('g1', 'd', now)).toBe('used');
      expect(await second.consumeGrant('g2', 'd', now)).toBe('ok');
      const again = await second.beginOperation({ ...op, owner: 'o2' }, 60_000, now);
      expect(again).toMatchObject({
        started: false,
        existing: { state: 'done', owner: 'o', result: { content: [{ type: 'text', text: 'done' }] } },
      });
    } finally {
      await second.close();
    }
  });

  it('upgrades a version 1 file: its operations stay owned until their lease ends', async () => {
    const { path, db: v1 } = fileAtVersion(
      1,
      `CREATE TABLE proxy_operations (user_id TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL,
        state TEXT NOT NULL, owner TEXT NOT NULL, inquiry_id TEXT, grant_id TEXT, result TEXT,
        updated_at INTEGER NOT NULL, remove_at INTEGER NOT NULL, PRIMARY KEY (user_id, key)) WITHOUT ROWID;
    `,
    );
    const now = Date.now();
    v1.db
      .prepare(
        `INSERT INTO proxy_operations VALUES ('u', 'old', 'd', 'awaiting_approval', 'o', NULL, 'g', NULL, ?, ?)`,
      )
      .run(now, now + 60_000);
    v1.close();
    const store = new SqliteProxyStore({ path });
    try {
      expect(await store.getOperation('u', 'old')).toMatchObject({
        owner: 'o',
        driveUntil: Number.MAX_SAFE_INTEGER,
      });
      expect(await store.adoptOperation('u', 'old', 'thief', now + 1000, now)).toBeNull();
      const call = { name: 't', arguments: {} };
      const op = { userId: 'u', key: 'new', digest: 'd', state: 'awaiting_approval' as const, owner: 'n' };
      await store.beginOperation({ ...op, driveUntil: now, call }, 60_000, now);
      expect(await store.adoptOperation('u', 'new', 'c', now + 1000, now)).toMatchObject({
        owner: 'c',
        call,
      });
    } finally {
      await store.close();
    }
  });

  it('opens a version 2 file as the build before ordered migrations wrote it (columns made by CREATE)', async () => {
    const { path, db: v2 } = fileAtVersion(
      2,
      `CREATE INDEX proxy_grants_by_removal ON proxy_grants (remove_at);
      CREATE TABLE proxy_operations (user_id TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL,
        state TEXT NOT NULL, owner TEXT NOT NULL, inquiry_id TEXT, grant_id TEXT, result TEXT,
        updated_at INTEGER NOT NULL, remove_at INTEGER NOT NULL, drive_until INTEGER, call TEXT,
        PRIMARY KEY (user_id, key)) WITHOUT ROWID;
      CREATE INDEX proxy_operations_by_removal ON proxy_operations (remove_at);
    `,
    );
    const now = Date.now();
    v2.db
      .prepare(
        `INSERT INTO proxy_operations VALUES ('u', 'parked', 'd', 'awaiting_approval', 'o', NULL, 'g', NULL, ?, ?, 0, ?)`,
      )
      .run(now, now + 60_000, JSON.stringify({ name: 't', arguments: { a: 1 } }));
    v2.db
      .prepare(`INSERT INTO proxy_grants VALUES ('g', 'u', 'd', 'approved', ?, ?)`)
      .run(now + 60_000, now + 120_000);
    v2.close();
    const store = new SqliteProxyStore({ path });
    try {
      expect(await store.adoptOperation('u', 'parked', 'c', now + 1000, now)).toMatchObject({
        owner: 'c',
        call: { name: 't', arguments: { a: 1 } },
      });
      expect(await store.consumeGrant('g', 'd', now)).toBe('ok');
    } finally {
      await store.close();
    }
  });

  it('refuses a second proxy on the same file', async () => {
    const path = join(stateDir, 'locked.db');
    const first = new SqliteProxyStore({ path });
    try {
      expect(() => new SqliteProxyStore({ path })).toThrow(
        /in use by process \d+: only one hitl proxy may run on a state directory/,
      );
    } finally {
      await first.close();
    }
  });

  it('settles what a killed process left unfinished: unknown outcomes end as done, waits are parked', async () => {
    const path = join(stateDir, 'settle.db');
    const now = Date.now();
    const first = new SqliteProxyStore({ path });
    const begin = (key: string, state: 'awaiting_approval' | 'in_progress') =>
      first.beginOperation({ userId: 'u', key, digest: 'd', state, owner: `o-${key}` }, 600_000, now);
    const grant = async (grantId: string, verdict?: 'approved') => {
      await first.createGrant({ grantId, userId: 'u', digest: 'd', expiresAt: now + 600_000 });
      if (verdict) await first.decideGrant(grantId, verdict, now);
    };
    /** An operation awaiting approval on `grantId`. */
    const awaiting = async (key: string, grantId: string) => {
      await begin(key, 'awaiting_approval');
      await first.updateOperation('u', key, `o-${key}`, { state: 'awaiting_approval', grantId }, now);
    };
    // Running without a grant (an ungated call), and running after its grant was used.
    await begin('running', 'in_progress');
    await grant('g-used', 'approved');
    await awaiting('consumed', 'g-used');
    expect(await first.consumeGrant('g-used', 'd', now)).toBe('ok');
    // Waiting for a person (grant pending), and approved but not used yet.
    await grant('g-pending');
    await awaiting('waiting', 'g-pending');
    await grant('g-approved', 'approved');
    await awaiting('approved', 'g-approved');
    // Done before the crash: untouched.
    await begin('finished', 'in_progress');
    await first.finishOperation('u', 'finished', 'o-finished', { ok: 1 }, 600_000, now);
    await first.close(); // as a kill -9 leaves it: the rows are in the file

    const second = new SqliteProxyStore({ path });
    try {
      const settled = await second.settleInterrupted((op) => ({ interrupted: op.key }), 60_000);
      expect(settled).toEqual({ unknownOutcome: 2, parked: 2 });
      expect(await second.getOperation('u', 'running')).toMatchObject({
        state: 'done',
        result: { interrupted: 'running' },
      });
      expect(await second.getOperation('u', 'consumed')).toMatchObject({
        state: 'done',
        result: { interrupted: 'consumed' },
      });
      expect(await second.getOperation('u', 'finished')).toMatchObject({ state: 'done', result: { ok: 1 } });
      // The waiting ones are parked: adoptable at once (not after the dead owner's lease), grants kept.
      for (const key of ['waiting', 'approved']) {
        expect(await second.getOperation('u', key)).toMatchObject({
          state: 'awaiting_approval',
          driveUntil: 0,
        });
        expect(await second.adoptOperation('u', key, `new-${key}`, now + 1000, now)).toMatchObject({
          owner: `new-${key}`,
        });
      }
      expect(await second.decideGrant('g-pending', 'approved', now)).toBe('approved');
      expect(await second.consumeGrant('g-approved', 'd', now)).toBe('ok');
      expect(await second.consumeGrant('g-used', 'd', now)).toBe('used');
    } finally {
      await second.close();
    }
  });
});
