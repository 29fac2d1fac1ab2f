import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { RedisInquiryStore } from '../src/index.js';
import { type IndexKind, MAX_WAITER_TAGS, type StoreKeys, storeKeys } from '../src/redis/keys.js';
import { answered, eventually, sampleInquiry, sleep, startRedisServer } from '../src/testing/index.js';
import { commandCounts, deletePrefix, useRedisServer } from './redis-helpers.js';

const shared = useRedisServer();

/** A store on its own client, under a fresh prefix, removed after the test. */
function openStore(options: { retentionMs?: number; reconnectDelayMs?: number; prefix?: string } = {}) {
  const prefix = options.prefix ?? `test:${randomUUID()}:`;
  const redis = new Redis(shared.server.url, {
    maxRetriesPerRequest: 2,
    // The store's subscriber is a duplicate(), so it reconnects on this schedule too.
    ...(options.reconnectDelayMs === undefined ? {} : { retryStrategy: () => options.reconnectDelayMs }),
  });
  const store = new RedisInquiryStore({ redis, prefix, retentionMs: options.retentionMs });
  shared.cleanups.push(async () => {
    await store.close();
    await deletePrefix(shared.server.url, prefix);
    await redis.quit();
  });
  return { store, redis, prefix, keys: storeKeys(prefix) };
}

/** Calls of a command so far on the test server (INFO commandstats; scripts' calls included). */
async function commandCalls(command: string): Promise<number> {
  return (await commandCounts(shared.admin))[command] ?? 0;
}

/** Scripts run so far on the test server. */
const evalshaCalls = () => commandCalls('evalsha');

/** The node channel of the store that created this inquiry (the first tag its hash lists). */
async function creatorChannel(redis: Redis, keys: StoreKeys, inquiryId: string): Promise<string> {
  const waiters = await redis.hget(keys.inquiry(inquiryId), 'waiters');
  return keys.nodeChannel(String(waiters?.split(',')[0]));
}

/** The part of a key Redis Cluster hashes to pick its slot. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('RedisInquiryStore on a real server', () => {
  it('wakes a waiter whose resolution was published while its subscriber was disconnected', async () => {
    const { store, keys, prefix } = openStore({ reconnectDelayMs: 400 });
    // Another node resolves it: a store wakes its own waiters from its resolve's reply.
    const { store: other } = openStore({ reconnectDelayMs: 400, prefix });
    await store.ping(5000); // its channel is live (a PING behind the SSUBSCRIBE)
    const inquiry = sampleInquiry();
    await store.create(inquiry);
    const heard: string[] = [];
    store.onResolved((resolved) => heard.push(resolved.inquiryId));
    // A deadline past the test's timeout: only the recovery's wake-up (not the deadline) can end it.
    // Its first wait on what it created while its channel was live: parked with no read, at once.
    const waiting = store.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 60 * 60_000 });
    await shared.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    // The premise: nobody is subscribed when the resolution is published.
    const channel = await creatorChannel(shared.admin, keys, inquiry.inquiryId);
    expect(await shared.admin.pubsub('SHARDNUMSUB', channel)).toEqual([channel, 0]);
    expect(await other.resolve(inquiry.inquiryId, answered('M'))).toMatchObject({ kind: 'won' });
    expect(await waiting).toMatchObject({ status: 'answered', answer: 'M' });
    expect(heard).toEqual([inquiry.inquiryId]);
    // The subscriber is back and carries later resolutions of what this store waits on.
    const next = sampleInquiry();
    await store.create(next);
    const waitingNext = store.waitForResolution(next.inquiryId, { deadline: Date.now() + 15_000 });
    await eventually(async () => (await shared.admin.pubsub('SHARDNUMSUB', channel))[1] === 1);
    await other.resolve(next.inquiryId, answered('L'));
    expect(await waitingNext).toMatchObject({ status: 'answered', answer: 'L' });
    await eventually(() => heard.includes(next.inquiryId));
  });

  it('lists each waiting node once in the inquiry and publishes its end to the other nodes only', async () => {
    const { store: creator, keys, prefix } = openStore();
    const { store: waiter } = openStore({ prefix });
    const { store: resolver } = openStore({ prefix });
    const inquiry = sampleInquiry();
    const id = inquiry.inquiryId;
    await creator.create(inquiry);
    const waitersField = () => shared.admin.hget(keys.inquiry(id), 'waiters');
    const creatorTag = String(await waitersField());
    // One channel per node, subscribed for its life, in a slot of its own.
    const creatorChannel = keys.nodeChannel(creatorTag);
    expect(await shared.admin.pubsub('SHARDNUMSUB', creatorChannel)).toEqual([creatorChannel, 1]);
    const first = waiter.waitForResolution(id, { deadline: Date.now() + 15_000 });
    const second = waiter.waitForResolution(id, { deadline: Date.now() + 15_000 });
    await eventually(async () => (await waitersField())?.split(',').length === 2);
    const [, waiterTag] = String(await waitersField()).split(',');
    expect(waiterTag).not.toBe(creatorTag);
    const subscribeCalls = await commandCalls('ssubscribe');
    const published = await commandCalls('spublish');
    expect(await resolver.resolve(id, answered('W'))).toMatchObject({ kind: 'won' });
    expect(await first).toMatchObject({ status: 'answered', answer: 'W' });
    expect(await second).toMatchObject({ status: 'answered', answer: 'W' });
    // The creator and the waiter, once each; the resolver is not listed, so not told.
    expect((await commandCalls('spublish')) - published).toBe(2);
    // A node that waits on an inquiry it created, and resolves it, publishes nothing at all.
    const own = sampleInquiry();
    await creator.create(own);
    // Parked as it is called, so the resolve's reply wakes it.
    const waiting = creator.waitForResolution(own.inquiryId, { deadline: Date.now() + 15_000 });
    await creator.resolve(own.inquiryId, answered('X'));
    expect(await waiting).toMatchObject({ status: 'answered', answer: 'X' });
    expect((await commandCalls('spublish')) - published).toBe(2);
    expect(await shared.admin.hget(keys.inquiry(own.inquiryId), 'waiters')).toBe(creatorTag);
    // No wait subscribed anything.
    expect(await commandCalls('ssubscribe')).toBe(subscribeCalls);
  });

  it('reads nothing for the first wait on an inquiry it has just created, and still wakes it', async () => {
    const { store, prefix } = openStore();
    const { store: other } = openStore({ prefix });
    await store.ping(5000); // its channel is live (a PING behind the SSUBSCRIBE)
    const inquiry = sampleInquiry();
    await store.create(inquiry);
    const [reads, scripts] = [await commandCalls('hmget'), await evalshaCalls()];
    const waiting = store.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 15_000 });
    // time itself is under test: a held wait sends nothing to Redis for a while.
    await sleep(50);
    expect([await commandCalls('hmget'), await evalshaCalls()]).toEqual([reads, scripts]);
    await other.resolve(inquiry.inquiryId, answered('F'));
    expect(await waiting).toMatchObject({ status: 'answered', answer: 'F' });
    // A second wait on it reads (only the first one after the create may skip).
    expect(await store.waitForResolution(inquiry.inquiryId)).toMatchObject({ status: 'answered' });
    expect(await commandCalls('hmget')).toBeGreaterThan(reads);
  });

  it('ends the first wait with an end that came between the create and the wait, with no read', async () => {
    const { store, prefix } = openStore();
    const { store: other } = openStore({ prefix });
    await store.ping(5000); // its channel is live (a PING behind the SSUBSCRIBE)
    const byOther = sampleInquiry();
    const byItself = sampleInquiry();
    await store.create(byOther);
    await store.create(byItself);
    const heard: string[] = [];
    store.onResolved((resolved) => heard.push(resolved.inquiryId));
    await other.resolve(byOther.inquiryId, answered('O'));
    await store.resolve(byItself.inquiryId, answered('I'));
    // A PING on the subscriber connection, answered after the messages published before it: they have arrived.
    await store.ping(5000);
    const reads = await commandCalls('hmget');
    expect(await store.waitForResolution(byOther.inquiryId)).toMatchObject({
      status: 'answered',
      answer: 'O',
    });
    expect(await store.waitForResolution(byItself.inquiryId)).toMatchObject({
      status: 'answered',
      answer: 'I',
    });
    expect(await commandCalls('hmget')).toBe(reads);
    expect(heard.sort()).toEqual([byOther.inquiryId, byItself.inquiryId].sort());
  });

  it('wakes the first wait on a just-created inquiry whose end was published while its channel was down', async () => {
    const { store, prefix } = openStore({ reconnectDelayMs: 300 });
    const { store: other } = openStore({ prefix });
    const inquiry = sampleInquiry();
    await store.create(inquiry);
    await shared.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    // Lost: nobody is subscribed to the store's channel now (the other store's channel is down too).
    await other.resolve(inquiry.inquiryId, answered('D'));
    // A deadline past the test's timeout: only the wait's own read (not the deadline) can end it.
    const result = await store.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 60 * 60_000 });
    expect(result).toMatchObject({ status: 'answered', answer: 'D' });
  });

  it("completes another node's published end from the pending inquiry its wait read", async () => {
    const { store: creator, prefix } = openStore();
    const { store: waiter } = openStore({ prefix });
    const created = await creator.create(sampleInquiry());
    if (created.kind !== 'ok') throw new Error('not created');
    const id = created.inquiry.inquiryId;
    // The message carries only what changed: the waiter's node completes it from the pending
    // inquiry its wait read.
    const heard: string[] = [];
    waiter.onResolved((resolved) => heard.push(resolved.inquiryId));
    const waiting = waiter.waitForResolution(id, { deadline: Date.now() + 15_000 });
    await eventually(
      async () => (await shared.admin.hget(storeKeys(prefix).inquiry(id), 'waiters'))?.includes(',') === true,
    );
    expect(await creator.resolve(id, answered('P'))).toMatchObject({ kind: 'won' });
    const resolved = await waiting;
    expect(resolved).toMatchObject({ status: 'answered', answer: 'P' });
    expect(resolved).toEqual(await creator.get(id));
    expect(heard).toEqual([id]);
  });

  it('keeps the newest waiting nodes of an inquiry, up to the cap', async () => {
    const { store, redis, keys } = openStore();
    const inquiry = sampleInquiry();
    await store.create(inquiry);
    const hashKey = keys.inquiry(inquiry.inquiryId);
    const tags = Array.from({ length: MAX_WAITER_TAGS + 3 }, (_, n) => `node${n}`);
    for (const tag of tags) await redis.hitlWatch(hashKey, tag, MAX_WAITER_TAGS);
    await redis.hitlWatch(hashKey, 'node5', MAX_WAITER_TAGS); // listed again: moves to the end, once
    const listed = String(await redis.hget(hashKey, 'waiters')).split(',');
    expect(listed).toHaveLength(MAX_WAITER_TAGS);
    expect(listed.at(-1)).toBe('node5');
    expect(listed.slice(0, -1)).toEqual(tags.slice(-MAX_WAITER_TAGS).filter((tag) => tag !== 'node5'));
  });

  it("wakes its own waiters from the resolve's reply, without the pub/sub round trip", async () => {
    const { store, keys } = openStore({ reconnectDelayMs: 60_000 });
    await store.ping(5000); // its channel is live (a PING behind the SSUBSCRIBE)
    const inquiry = sampleInquiry();
    await store.create(inquiry);
    // Its first wait on what it created while its channel was live: parked with no read, at once.
    const waiting = store.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 15_000 });
    // No subscription at all (and none for a minute): only the local wake can end the wait.
    await shared.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    const channel = await creatorChannel(shared.admin, keys, inquiry.inquiryId);
    expect(await shared.admin.pubsub('SHARDNUMSUB', channel)).toEqual([channel, 0]);
    expect(await store.resolve(inquiry.inquiryId, answered('N'))).toMatchObject({ kind: 'won' });
    expect(await waiting).toMatchObject({ status: 'answered', answer: 'N' });
  });

  it('writes the documented keys, in one slot per inquiry and per user, with TTLs', async () => {
    const { store, redis, keys } = openStore({ retentionMs: 60_000 });
    const inquiry = sampleInquiry({ idempotencyKey: 'order-7' });
    await store.create(inquiry);
    const id = inquiry.inquiryId;
    const idem = keys.idempotency('user-a', 'order-7');
    expect(hashTag(keys.inquiry(id))).toBe(id);
    expect(new Set([idem, keys.userPending('user-a'), keys.userAll('user-a')].map(hashTag))).toEqual(
      new Set(['u:user-a']),
    );
    expect(await redis.hget(keys.inquiry(id), 'status')).toBe('pending');
    expect(await redis.hget(keys.inquiry(id), 'events')).toBe(`created ${inquiry.createdAt}`);
    expect(await redis.get(idem)).toBe(id);
    expect(await redis.zscore(keys.index('deadlines', id), id)).toBe(String(inquiry.deadlines.serviceAt));
    for (const set of [
      keys.userPending('user-a'),
      keys.userAll('user-a'),
      keys.index('pending', id),
      keys.index('all', id),
    ]) {
      expect(await redis.zscore(set, id)).toBe('0');
    }
    const hashTtl = await redis.pttl(keys.inquiry(id));
    expect(hashTtl).toBeGreaterThan(100_000); // service deadline (50 s) + retention (60 s)
    expect(await redis.pttl(idem)).toBeLessThanOrEqual(hashTtl);

    const resolution = answered('S');
    await store.resolve(id, resolution);
    expect(await redis.hget(keys.inquiry(id), 'events')).toBe(
      `created ${inquiry.createdAt};resolved answered ${resolution.resolvedAt}`,
    );
    const endedTtl = await redis.pttl(keys.inquiry(id));
    expect(endedTtl).toBeLessThanOrEqual(60_000);
    expect(await redis.pttl(idem)).toBeLessThanOrEqual(endedTtl);
    for (const set of [keys.userPending('user-a'), keys.index('pending', id), keys.index('deadlines', id)]) {
      expect(await redis.zscore(set, id)).toBeNull();
    }
    expect(await redis.zscore(keys.userAll('user-a'), id)).toBe('0');
  });

  it('resolves and drops the indexes in one script when the caller names the asker', async () => {
    const { store, redis, keys, prefix } = openStore({ retentionMs: 60_000 });
    const inquiry = sampleInquiry({ idempotencyKey: 'order-8' });
    await store.create(inquiry);
    const id = inquiry.inquiryId;
    const idem = keys.idempotency('user-a', 'order-8');
    // A wrong hint changes nothing but the work: the asker's set is still cleaned. (This also loads
    // the script, so the count below sees one EVALSHA, not a NOSCRIPT and an EVAL.)
    const other = sampleInquiry();
    await store.create(other);
    expect(await store.resolve(other.inquiryId, answered('U'), { userId: 'user-z' })).toMatchObject({
      kind: 'won',
    });
    await eventually(async () => (await redis.zscore(keys.userPending('user-a'), other.inquiryId)) === null);
    const scriptsBefore = await evalshaCalls();
    expect(
      await store.resolve(id, answered('T'), { userId: 'user-a', idempotencyKey: 'order-8' }),
    ).toMatchObject({ kind: 'won', inquiry: { status: 'answered', answer: 'T' } });
    expect(await evalshaCalls()).toBe(scriptsBefore + 1);
    for (const set of [keys.userPending('user-a'), keys.index('pending', id), keys.index('deadlines', id)]) {
      expect(await redis.zscore(set, id)).toBeNull();
    }
    // The key expires with the hash, not after it (both shortened in the same script).
    const expiresAt = (key: string) => redis.call('PEXPIRETIME', key) as Promise<number>;
    expect(await expiresAt(idem)).toBe(await expiresAt(keys.inquiry(id)));
    expect(await redis.pttl(idem)).toBeGreaterThan(0);
    expect(await redis.keys(`${prefix}*:events`)).toEqual([]);
  });

  it('shortens the idempotency key with the hash when the hint names the asker but not the key', async () => {
    const { store, redis, keys } = openStore({ retentionMs: 60_000 });
    const inquiry = sampleInquiry({ idempotencyKey: 'order-9' });
    await store.create(inquiry);
    const id = inquiry.inquiryId;
    // A node that skipped its read guesses the asker from what it relayed: the user, not the key.
    expect(await store.resolve(id, answered('T'), { userId: 'user-a' }, 'user-a')).toMatchObject({
      kind: 'won',
    });
    const expiresAt = (key: string) => redis.call('PEXPIRETIME', key) as Promise<number>;
    const idem = keys.idempotency('user-a', 'order-9');
    await eventually(async () => (await expiresAt(idem)) <= (await expiresAt(keys.inquiry(id))));
    expect(await redis.pttl(idem)).toBeGreaterThan(0);
    expect(await redis.zscore(keys.userPending('user-a'), id)).toBeNull();
  });

  it('keeps a pending inquiry with a week-long answer window its service deadline plus the retention', async () => {
    const { store, redis, keys } = openStore({ retentionMs: 60_000 });
    const now = Date.now();
    const week = 7 * 24 * 60 * 60_000;
    const deadlines = { deviceAt: now + week, serviceAt: now + week, clientAt: now + week + 60_000 };
    const inquiry = sampleInquiry({ idempotencyKey: 'week', deadlines });
    await store.create(inquiry);
    const idem = keys.idempotency('user-a', 'week');
    for (const key of [keys.inquiry(inquiry.inquiryId), idem]) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(week + 60_000 - 10_000);
      expect(ttl).toBeLessThanOrEqual(week + 60_000);
    }
    // The per-user and global sets carry no TTL: an earlier, shorter inquiry cannot take them along.
    for (const set of [
      keys.userPending('user-a'),
      keys.userAll('user-a'),
      keys.index('pending', inquiry.inquiryId),
      keys.index('all', inquiry.inquiryId),
    ]) {
      expect(await redis.pttl(set)).toBe(-1);
    }
  });

  it('re-creates, under the reserved id, an inquiry whose create crashed between its two steps', async () => {
    const { store, redis, keys } = openStore();
    const reservedId = ulid();
    const idem = keys.idempotency('user-a', 'crashy');
    await redis.hitlReserve(
      idem,
      keys.userPending('user-a'),
      keys.userAll('user-a'),
      reservedId,
      0,
      60_000,
      '1',
    );
    expect(await store.getByKey('user-a', 'crashy')).toBeNull();
    const retried = await store.create(sampleInquiry({ idempotencyKey: 'crashy' }));
    expect(retried).toMatchObject({ kind: 'ok', created: true, inquiry: { inquiryId: reservedId } });
    expect(await store.getByKey('user-a', 'crashy')).toMatchObject({
      inquiryId: reservedId,
      status: 'pending',
    });
    expect(await store.countPending('user-a')).toBe(1);
    expect(await store.listDue(Date.now() + 60_000, 10)).toEqual([reservedId]);
  });

  it('gives a re-sent script call (same token) its first outcome, not "existed"', async () => {
    const { store, redis, keys } = openStore();
    const userSets = [keys.userPending('user-a'), keys.userAll('user-a')] as const;
    const id = ulid();
    const reserve = () => redis.hitlReserve(keys.idempotency('user-a', ''), ...userSets, id, 1, 60_000, '0');
    expect(await reserve()).toEqual([1, id]);
    expect(await reserve()).toEqual([1, id]); // at the cap of 1, but it is its own id
    const create = (token: string) =>
      redis.hitlCreate(
        keys.inquiry(id),
        JSON.stringify(sampleInquiry({ inquiryId: id })),
        60_000,
        '',
        1,
        token,
        'node-a',
      );
    expect(await create('call-1')).toEqual([1]);
    expect(await create('call-1')).toEqual([1]);
    expect((await create('call-2'))[0]).toBe(0);
    const resolve = (token: string) =>
      redis.hitlResolve(
        keys.inquiry(id),
        'answered',
        '{"status":"answered"}',
        60_000,
        keys.nodeChannelPrefix,
        1,
        token,
        id,
        'node-a',
        '',
      );
    expect((await resolve('call-1'))[0]).toBe(1);
    expect((await resolve('call-1'))[0]).toBe(1);
    expect((await resolve('call-2'))[0]).toBe(0);
    expect(await redis.hget(keys.inquiry(id), 'events')).toBe('created 1;resolved answered 1'); // once each
    expect(await store.get(id)).toMatchObject({ status: 'answered' });
  });

  it('gives a re-sent one-step create or resolve its first outcome', async () => {
    const { store, redis, keys } = openStore();
    const inquiry = sampleInquiry({ idempotencyKey: 'again' });
    const id = inquiry.inquiryId;
    const idem = keys.idempotency('user-a', 'again');
    const userSets = [keys.userPending('user-a'), keys.userAll('user-a')] as const;
    const globals = [keys.index('deadlines', id), keys.index('pending', id), keys.index('all', id)] as const;
    const create = (withKey: '0' | '1', cap: number) =>
      redis.hitlCreateAtOnce(
        idem,
        ...userSets,
        keys.inquiry(id),
        ...globals,
        keys.call('call-1'),
        id,
        cap,
        60_000,
        withKey,
        JSON.stringify(inquiry),
        '',
        1,
        2,
        'node-a',
        0,
      );
    expect((await create('1', 1))[0]).toBe(1);
    expect((await create('1', 1))[0]).toBe(1); // its own id under the key, at the cap of 1
    expect((await create('0', 1))[0]).toBe(1); // its own id in the user's ids
    expect(await store.countPending('user-a')).toBe(1);
    const resolve = (token: string) =>
      redis.hitlResolveAtOnce(
        keys.inquiry(id),
        keys.userPending('user-a'),
        idem,
        keys.index('deadlines', id),
        keys.index('pending', id),
        'answered',
        '{"status":"answered"}',
        60_000,
        keys.nodeChannelPrefix,
        3,
        token,
        id,
        '1',
        '1',
        'node-b',
        '',
      );
    expect((await resolve('call-1'))[0]).toBe(1);
    expect((await resolve('call-1'))[0]).toBe(1);
    expect((await resolve('call-2'))[0]).toBe(0);
    expect(await redis.hget(keys.inquiry(id), 'events')).toBe('created 1;resolved answered 3');
    expect(await store.countPending('user-a')).toBe(0);
    expect(await redis.zscore(keys.index('deadlines', id), id)).toBeNull();
    // A create re-sent after its inquiry ended still finds its own run (in the user's ids), under the
    // cap or at it, and writes nothing over the ending.
    expect((await create('0', 0))[0]).toBe(1);
    await redis.zadd(keys.userPending('user-a'), 0, ulid());
    expect((await create('0', 1))[0]).toBe(1);
    expect(await redis.hget(keys.inquiry(id), 'events')).toBe('created 1;resolved answered 3');
    expect(await store.get(id)).toMatchObject({ status: 'answered' });
    expect(await redis.zscore(keys.userPending('user-a'), id)).toBeNull();
  });

  it("creates without an existence read: adding the fresh id to the user's ids is the check", async () => {
    const { store } = openStore();
    await store.create(sampleInquiry()); // loads the script: the count below sees no NOSCRIPT retry
    const before = await Promise.all(['exists', 'zscore', 'hexists'].map(commandCalls));
    expect(await store.create(sampleInquiry(), { maxPendingPerUser: 10 })).toMatchObject({ created: true });
    expect(await Promise.all(['exists', 'zscore', 'hexists'].map(commandCalls))).toEqual(before);
  });

  it('does not let a stale pending member hold the cap', async () => {
    const { store, redis, keys } = openStore();
    const ended = sampleInquiry();
    await store.create(ended);
    await store.resolve(ended.inquiryId, answered('M'));
    // As if the clean-up after the resolve had failed.
    await redis.zadd(keys.userPending('user-a'), 0, ended.inquiryId);
    const next = await store.create(sampleInquiry(), { maxPendingPerUser: 1 });
    expect(next).toMatchObject({ kind: 'ok', created: true });
    expect(await store.create(sampleInquiry(), { maxPendingPerUser: 1 })).toEqual({
      kind: 'limit',
      pending: 1,
    });
  });

  it('spreads the global indexes over their shards; listings, the gauge and the sweep see every shard', async () => {
    const { store, redis, keys } = openStore();
    const now = Date.now();
    const created = [];
    for (let i = 0; i < 40; i++) {
      const inquiry = sampleInquiry({
        createdAt: now - 1000,
        deadlines: { deviceAt: now - 500, serviceAt: now - 100 - i, clientAt: now + 60_000 },
      });
      await store.create(inquiry);
      created.push(inquiry.inquiryId);
    }
    const shards = new Set(created.map((id) => keys.index('pending', id)));
    expect(shards.size).toBeGreaterThan(4);
    for (const id of created) expect(await redis.zscore(keys.index('pending', id), id)).toBe('0');
    expect(await store.countAllPending()).toBe(40);
    // Earliest deadline first across the shards (the last created has the earliest).
    expect(await store.listDue(now, 5)).toEqual(created.slice(-5).reverse());
    // Ops pages walk every shard in id order, with the opaque cursor.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ status: 'pending', limit: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((i) => i.inquiryId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...created].sort().reverse());
  });

  it('sweeps every shard of an index with one command sent (the shards read inside one script)', async () => {
    const { store, prefix } = openStore();
    const now = Date.now();
    const due = sampleInquiry({
      createdAt: now - 1000,
      deadlines: { deviceAt: now - 500, serviceAt: now - 100, clientAt: now + 60_000 },
    });
    await store.create(due);
    await store.create(sampleInquiry());
    const monitor = await new Redis(shared.server.url).monitor();
    shared.cleanups.push(async () => monitor.disconnect());
    const seen: { command: string; source: string }[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args.some((arg) => arg.startsWith(prefix)))
        seen.push({ command: String(args[0]).toLowerCase(), source });
    });
    expect(await store.listDue(now, 10)).toEqual([due.inquiryId]);
    expect(await store.listDueEscalations(now, 10)).toEqual([]);
    await eventually(async () => seen.filter((s) => s.command === 'zrangebyscore').length >= 34);
    const sent = seen.filter((s) => s.source !== 'lua').map((s) => s.command);
    // Two sweeps (deadlines, escalations): one script each, then the due id's status read.
    expect(sent.filter((c) => c === 'zrangebyscore')).toEqual([]);
    expect(sent.filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(2);
    // Inside them, every shard and the unsharded key of earlier versions, per index.
    expect(seen.filter((s) => s.source === 'lua' && s.command === 'zrangebyscore')).toHaveLength(34);
  });

  it('skips and removes stale set members, but keeps a fresh one whose create is in flight', async () => {
    const { store, redis, keys } = openStore();
    // The unsharded index keys of earlier versions: still read and cleaned.
    const legacy = (kind: IndexKind) => keys.indexKeys(kind).at(-1) as string;
    const live = sampleInquiry();
    await store.create(live);
    const expired = ulid(Date.now() - 3_600_000);
    const inFlight = ulid();
    for (const set of [
      keys.userPending('user-a'),
      keys.userAll('user-a'),
      legacy('pending'),
      legacy('all'),
    ]) {
      await redis.zadd(set, 0, expired, 0, inFlight);
    }
    await redis.zadd(legacy('deadlines'), 1, expired);
    expect(await store.countPending('user-a')).toBe(1);
    const page = await store.list({ userId: 'user-a', status: 'pending', limit: 1 });
    expect(page).toEqual({ items: [{ ...live, status: 'pending' }], nextCursor: null });
    expect((await store.list({ status: 'all', limit: 10 })).items.map((i) => i.inquiryId)).toEqual([
      live.inquiryId,
    ]);
    expect(await store.listDue(Date.now(), 10)).toEqual([]);
    await eventually(async () => (await redis.zscore(keys.userPending('user-a'), expired)) === null);
    await eventually(async () => (await redis.zscore(legacy('deadlines'), expired)) === null);
    expect(await redis.zscore(keys.userPending('user-a'), inFlight)).toBe('0');
  });
});

describe('RedisInquiryStore opened from a URL', () => {
  // Needs a server of its own to kill and count clients on.
  it.skipIf(Boolean(process.env.REDIS_URL))(
    'fails ping fast while Redis is down, recovers, and closes both its connections',
    async () => {
      const own = await startRedisServer();
      shared.cleanups.push(() => own.stop());
      const probe = new Redis(own.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
      probe.on('error', () => {});
      shared.cleanups.push(() => probe.quit().catch(() => probe.disconnect()));
      const store = new RedisInquiryStore({ redis: own.url, prefix: 'url:' });
      await store.ping(1000);
      expect(await clientCount(probe)).toBe(3); // probe + store + subscriber

      await own.kill();
      // A ping that ignored its timeout while Redis is gone would hang until the test's own timeout.
      await expect(store.ping(800)).rejects.toThrow();

      await own.restart();
      await eventually(
        () =>
          store.ping(300).then(
            () => true,
            () => false,
          ),
        10_000,
      );
      await store.close();
      await eventually(async () => (await clientCount(probe)) === 1, 5000);
    },
  );
});

async function clientCount(redis: Redis): Promise<number> {
  const list = (await redis.client('LIST')) as string;
  return list.trim().split('\n').length;
}
