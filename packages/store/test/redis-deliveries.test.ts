import { randomUUID } from 'node:crypto';
import { type DeviceDelivery, MAX_DEVICE_DELIVERIES } from '@hitl/protocol';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisDeviceDeliveryLog, RedisInquiryStore } from '../src/index.js';
import { storeKeys } from '../src/redis/keys.js';
import { answered, sampleInquiry } from '../src/testing/index.js';
import { commandCounts, deletePrefix, useRedisServer } from './redis-helpers.js';

const shared = useRedisServer();

/** An inquiry store and a delivery log on one client, under a fresh prefix. */
function open() {
  const prefix = `test:${randomUUID()}:`;
  const redis = new Redis(shared.server.url);
  const store = new RedisInquiryStore({ redis, prefix });
  const log = new RedisDeviceDeliveryLog({ redis, prefix });
  shared.cleanups.push(async () => {
    await store.close();
    await deletePrefix(shared.server.url, prefix);
    await redis.quit();
  });
  return { store, log, prefix, keys: storeKeys(prefix) };
}

async function asked(store: RedisInquiryStore): Promise<string> {
  const inquiry = sampleInquiry();
  await store.create(inquiry);
  return inquiry.inquiryId;
}

const entry = (inquiryId: string, n: number): DeviceDelivery => ({
  inquiryId,
  deviceName: `d${n}`,
  deviceId: `id-${n}`,
  socketId: `s-${n}`,
  via: 'socket',
  event: n % 2 === 0 ? 'new' : 'sync',
  at: 1_000 + n,
});

const keysUnder = (prefix: string) => shared.admin.keys(`${prefix}*`);

describe('device deliveries in the inquiry hash (one Redis)', () => {
  it('keeps the newest per inquiry across batches, in the hash itself (no key of their own)', async () => {
    const { store, log, prefix } = open();
    const [q1, q2] = [await asked(store), await asked(store)];
    const before = (await keysUnder(prefix)).sort();
    await log.add([...Array.from({ length: 40 }, (_, i) => entry(q1, i)), entry(q2, 0)]);
    await log.add(Array.from({ length: 25 }, (_, i) => entry(q1, 40 + i)));
    const kept = await log.list(q1);
    expect(kept.map((e) => e.deviceName)).toEqual(
      Array.from({ length: MAX_DEVICE_DELIVERIES }, (_, i) => `d${64 - i}`),
    );
    expect(await log.list(q2)).toEqual([entry(q2, 0)]);
    expect((await keysUnder(prefix)).sort()).toEqual(before);
    // A batch longer than the ring keeps its newest.
    await log.add(Array.from({ length: 70 }, (_, i) => entry(q2, 100 + i)));
    expect((await log.list(q2)).map((e) => e.deviceName)).toEqual(
      Array.from({ length: MAX_DEVICE_DELIVERIES }, (_, i) => `d${169 - i}`),
    );
  });

  it('writes nothing for an inquiry that no longer exists (no key without a TTL), and the rest of the batch', async () => {
    const { store, log, prefix, keys } = open();
    const live = await asked(store);
    const gone = await asked(store);
    await shared.admin.del(keys.inquiry(gone));
    const before = (await keysUnder(prefix)).sort();
    await log.add([entry('never-asked', 0), entry(gone, 1), entry(live, 2)]);
    expect((await keysUnder(prefix)).sort()).toEqual(before);
    expect(await shared.admin.exists(keys.inquiry('never-asked'), keys.inquiry(gone))).toBe(0);
    expect(await log.list(live)).toEqual([entry(live, 2)]);
    expect(await log.list(gone)).toEqual([]);
  });

  it('leaves the inquiry readable and resolvable, and ends with it', async () => {
    const { store, log, keys } = open();
    const id = await asked(store);
    await log.add([entry(id, 0), entry(id, 1)]);
    expect((await store.get(id))?.status).toBe('pending');
    expect((await store.resolve(id, answered('M'))).kind).toBe('won');
    expect((await store.get(id))?.answer).toBe('M');
    expect(await log.list(id)).toHaveLength(2);
    // Nothing of their own to expire: the hash's TTL (the retention now) covers them.
    expect(await shared.admin.pttl(keys.inquiry(id))).toBeGreaterThan(0);
    await shared.admin.del(keys.inquiry(id));
    expect(await log.list(id)).toEqual([]);
  });

  it('reads what an earlier version kept (a list of its own), and numbers an inquiry it made', async () => {
    const { store, log, keys } = open();
    const id = await asked(store);
    // As an earlier version left it: no `dlv` in the hash, the entries in `inq:{<id>}:devices`.
    await shared.admin.hdel(keys.inquiry(id), 'dlv');
    await shared.admin.lpush(
      keys.earlierDeliveries(id),
      JSON.stringify(entry(id, 0)),
      JSON.stringify(entry(id, 1)),
    );
    await log.add([entry(id, 2)]);
    await log.add([entry(id, 3), entry(id, 4)]);
    expect((await log.list(id)).map((e) => e.deviceName)).toEqual(['d4', 'd3', 'd2', 'd1', 'd0']);
    expect(await shared.admin.hget(keys.inquiry(id), 'dlv')).toBe('4');
  });

  it('writes a batch in one command sent, whatever the inquiries', async () => {
    const { store, log } = open();
    const ids = [await asked(store), await asked(store), await asked(store)];
    const before = await commandCounts(shared.admin);
    await log.add(ids.flatMap((id, i) => [entry(id, i), entry(id, 10 + i)]));
    const after = await commandCounts(shared.admin);
    const ran = (command: string) => (after[command] ?? 0) - (before[command] ?? 0);
    // One script call (EVALSHA, or EVAL the first time on a connection); inside it, per inquiry: the
    // counter and the ring, nothing else.
    expect(ran('evalsha') + ran('eval')).toBe(1);
    expect(['hincrby', 'hset', 'hexists', 'del', 'pexpire'].map(ran)).toEqual([3, 3, 0, 0, 0]);
  });
});
