import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MemorySlackStore,
  openStateDatabase,
  RedisSlackStore,
  type SlackStore,
  SqliteSlackStore,
} from '../src/index.js';
import { sleep, startRedisServer } from '../src/testing/index.js';

/** One behaviour suite on the three Slack stores: posts per target, expiry, one winner per claim. */

interface Fixture {
  store: SlackStore;
  /** A second handle on the same records (another node), where the kind has one. */
  peer: SlackStore;
  clock: { now: number };
  /** Lets `ms` pass for the store: the fixture's clock, or for Redis (which expires keys on its own clock) real time. */
  pass(ms: number): Promise<void>;
  close(): Promise<void>;
}

const bump = (clock: { now: number }) => async (ms: number) => {
  clock.now += ms;
};

const makers: Record<string, () => Promise<Fixture>> = {
  memory: async () => {
    const clock = { now: 1_000_000 };
    const store = new MemorySlackStore(() => clock.now);
    return { store, peer: store, clock, pass: bump(clock), close: async () => undefined };
  },
  sqlite: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-slack-'));
    const database = openStateDatabase(join(dir, 'hitl.db'), 'hitl node');
    const clock = { now: 1_000_000 };
    const store = new SqliteSlackStore(database.db, () => clock.now);
    return {
      store,
      peer: store,
      clock,
      pass: bump(clock),
      close: async () => {
        database.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  redis: async () => {
    const server = await startRedisServer();
    const one = new Redis(server.url);
    const two = new Redis(server.url);
    // Redis expires keys on its own clock: the fixture's clock is the real one, and time passes for real.
    const clock = {
      get now() {
        return Date.now();
      },
    };
    return {
      store: new RedisSlackStore(one, () => clock.now),
      peer: new RedisSlackStore(two, () => clock.now),
      clock,
      pass: (ms) => sleep(ms + 20), // time itself is under test: TTLs on Redis's own clock
      close: async () => {
        one.disconnect();
        two.disconnect();
        await server.stop();
      },
    };
  },
};

describe.each(Object.keys(makers))('SlackStore on %s', (kind) => {
  let fixture: Fixture | undefined;
  const open = async () => {
    fixture = await (makers[kind] as () => Promise<Fixture>)();
    return fixture;
  };
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('keeps one post per target, read on any node', async () => {
    const { store, peer, clock } = await open();
    const until = clock.now + 60_000;
    await store.addPost('inq1', { target: 'user:ann', channel: 'D1', ts: '1.1', userId: 'ann' }, until);
    await peer.addPost('inq1', { target: 'team:ops', channel: 'C1', ts: '1.2' }, until);
    await store.addPost('inq1', { target: 'user:ann', channel: 'D1', ts: '1.3', userId: 'ann' }, until);
    expect(await peer.posts('inq1')).toEqual([
      { target: 'team:ops', channel: 'C1', ts: '1.2' },
      { target: 'user:ann', channel: 'D1', ts: '1.3', userId: 'ann' },
    ]);
    expect(await store.posts('other')).toEqual([]);
  });

  it('one claim of a key wins, on any number of nodes at once; it can be taken again once it expired', async () => {
    const { store, peer, clock } = await open();
    const until = clock.now + 1000;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? peer : store).claim('inq1:end:user:ann', until)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.claim('inq1:end:team:ops', until)).toBe(true);
    // Time itself is under test here (a claim's expiry).
    await fixture?.pass(1001);
    expect(await peer.claim('inq1:end:user:ann', clock.now + 1000)).toBe(true);
  });

  it('forgets posts past their time', async () => {
    const { store, clock, pass } = await open();
    await store.addPost('inq2', { target: 'user:bob', channel: 'D2', ts: '2.1' }, clock.now + 100);
    expect(await store.posts('inq2')).toHaveLength(1);
    // Time itself is under test here (the posts' expiry).
    await pass(101);
    expect(await store.posts('inq2')).toEqual([]);
  });
});
