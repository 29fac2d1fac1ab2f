import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Delivery, type DeviceDelivery, MAX_DEVICE_DELIVERIES } from '@hitl/protocol';
import {
  type DeviceDeliveryLog,
  MemoryDeviceDeliveryLog,
  openStateDatabase,
  RedisDeviceDeliveryLog,
  RedisInquiryStore,
  SqliteDeviceDeliveryLog,
} from '@hitl/store';
import { eventually, sampleInquiry, startRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceDeliveryRecorder } from '../src/socket/delivery-recorder.js';
import { newUser } from './decision-helpers.js';
import { body, type NodePair, startNodePair, startTestNode, type TestNode } from './harness.js';

interface Channels {
  items: Delivery[];
  devices: DeviceDelivery[];
}

/** A phone on `phoneNode` and a laptop on `laptopNode`, both connected; the agent asks on `phoneNode`. */
async function twoDevicesAsked(phoneNode: TestNode, laptopNode: TestNode) {
  const user = newUser();
  const phone = await phoneNode.device(user, 'Phone');
  const laptop = await laptopNode.device(user, 'Laptop');
  await Promise.all([phone.synced, laptop.synced]);
  const agent = await phoneNode.mcp(user);
  const call = agent.callTool({ name: 'send_inquiry', arguments: { question: 'Ship it?' } });
  const [onPhone, onLaptop] = await Promise.all([phone.nextNew(), laptop.nextNew()]);
  expect(onLaptop.inquiryId).toBe(onPhone.inquiryId);
  return { user, phone, laptop, call, id: onPhone.inquiryId };
}

const channelsOf = async (t: TestNode, inquiryId: string, token: string) =>
  body<Channels>(await t.rest(`/api/inquiries/${inquiryId}/channels`, { token }));

describe('device deliveries on the ops timeline: two nodes on one Redis', () => {
  let pair: NodePair;
  let a: TestNode;
  let b: TestNode;
  beforeAll(async () => {
    pair = await startNodePair();
    ({ a, b } = pair);
  });
  afterAll(() => pair?.close());

  it('an inquiry reaching two devices of a user on different nodes lists both, from either node', async () => {
    const { user, phone, laptop, call, id } = await twoDevicesAsked(a, b);

    const ops = await b.token('ops-1', 'ops');
    let devices: DeviceDelivery[] = [];
    await eventually(async () => {
      devices = (await channelsOf(b, id, ops)).devices;
      return devices.length >= 2;
    }, 10_000);
    expect(devices.map((d) => d.deviceName).sort()).toEqual(['Laptop', 'Phone']);
    for (const d of devices) {
      expect(d).toMatchObject({ inquiryId: id, via: 'socket', event: 'new' });
      expect(d.jti).toEqual(expect.any(String));
    }
    expect(devices.find((d) => d.deviceName === 'Phone')?.socketId).toBe(phone.socket.id);
    expect(devices.find((d) => d.deviceName === 'Laptop')?.socketId).toBe(laptop.socket.id);
    // The shape the console already reads is still there (no push, mail or webhook here).
    const fromA = await channelsOf(a, id, ops);
    expect(fromA.items).toEqual([]);
    expect(fromA.devices).toHaveLength(2);

    // A device that connects later gets it in its sync; that is recorded too, newest first.
    const tablet = await a.device(user, 'Tablet');
    expect((await tablet.synced).inquiries.map((i) => i.inquiryId)).toContain(id);
    await eventually(async () => (await channelsOf(b, id, ops)).devices.length === 3, 10_000);
    expect((await channelsOf(b, id, ops)).devices[0]).toMatchObject({ deviceName: 'Tablet', event: 'sync' });

    // Only ops reads it.
    const own = await a.rest(`/api/inquiries/${id}/channels`, { token: await a.token(user, 'device') });
    expect(own.status).toBe(403);
    await phone.emit('inquiry:answer', { inquiryId: id, response: 'yes' });
    await call;
  });
});

describe('an embedded node (SQLite) records them too', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('two devices on one node', async () => {
    const { laptop, call, id: inquiryId } = await twoDevicesAsked(t, t);
    const ops = await t.token('ops-1', 'ops');
    await eventually(async () => (await channelsOf(t, inquiryId, ops)).devices.length === 2, 10_000);
    const { devices } = await channelsOf(t, inquiryId, ops);
    expect(devices.map((d) => d.deviceName).sort()).toEqual(['Laptop', 'Phone']);
    await laptop.emit('inquiry:refuse', { inquiryId });
    await call;
  });
});

const entry = (inquiryId: string, n: number): DeviceDelivery => ({
  inquiryId,
  deviceName: `d${n}`,
  deviceId: `id-${n}`,
  socketId: `s-${n}`,
  via: 'socket',
  event: 'new',
  at: 1_000 + n,
});

/**
 * A log under test; `ask` makes inquiries with these ids exist first (the Redis log keeps entries in
 * the inquiry's own hash, so it records only inquiries that exist, as every real delivery's does).
 */
interface MadeLog {
  log: DeviceDeliveryLog;
  ask?(inquiryIds: string[]): Promise<void>;
  close(): Promise<void>;
}

/** The same checks against each store kind's log. */
function logContract(name: string, open: () => Promise<MadeLog>) {
  describe(`${name} device delivery log`, () => {
    let made: MadeLog;
    beforeAll(async () => {
      made = await open();
    });
    afterAll(async () => {
      await made?.close();
    });

    it(`keeps the newest ${MAX_DEVICE_DELIVERIES} per inquiry, newest first, each inquiry apart`, async () => {
      await made.ask?.(['q1', 'q2']);
      const batch = Array.from({ length: 40 }, (_, i) => entry('q1', i));
      await made.log.add([...batch, entry('q2', 0)]);
      await made.log.add(Array.from({ length: 25 }, (_, i) => entry('q1', 40 + i)));
      const kept = await made.log.list('q1');
      expect(kept).toHaveLength(MAX_DEVICE_DELIVERIES);
      expect(kept[0]?.deviceName).toBe('d64');
      expect(kept.at(-1)?.deviceName).toBe(`d${65 - MAX_DEVICE_DELIVERIES}`);
      expect(await made.log.list('q2')).toEqual([entry('q2', 0)]);
      expect(await made.log.list('none')).toEqual([]);
    });
  });
}

/** A Redis delivery log, and inquiries made by a Redis store on the same client. */
function redisLog(client: Redis) {
  const store = new RedisInquiryStore({ redis: client });
  return {
    store,
    log: new RedisDeviceDeliveryLog({ redis: client }),
    ask: async (inquiryIds: string[]) => {
      for (const inquiryId of inquiryIds) await store.create(sampleInquiry({ inquiryId }));
    },
  };
}

logContract('memory', async () => ({ log: new MemoryDeviceDeliveryLog(), close: async () => undefined }));

logContract('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hitl-devlog-'));
  const database = openStateDatabase(join(dir, 'state.db'));
  return {
    log: new SqliteDeviceDeliveryLog(database.db),
    close: async () => {
      database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

logContract('Redis', async () => {
  const server = await startRedisServer();
  const client = new Redis(server.url);
  const { store, log, ask } = redisLog(client);
  return {
    log,
    ask,
    close: async () => {
      await store.close();
      client.disconnect();
      await server.stop();
    },
  };
});

describe('the recorder', () => {
  it('batches writes off the caller, and a store that is down costs entries, never an error', async () => {
    const server = await startRedisServer();
    const client = new Redis(server.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const { store, log, ask } = redisLog(client);
    const recorder = new DeviceDeliveryRecorder(log, pino({ level: 'silent' }), {
      flushMs: 50,
      batchSize: 3,
    });
    try {
      await eventually(() => client.status === 'ready', 5000);
      await ask(['r1']);
      for (let i = 0; i < 7; i++) recorder.record(entry('r1', i));
      // Nothing is written by `record` itself; a full batch goes at once, the rest after `flushMs`.
      await eventually(async () => (await log.list('r1')).length === 7, 5000);
      expect((await log.list('r1')).map((e) => e.deviceName)).toEqual([
        'd6',
        'd5',
        'd4',
        'd3',
        'd2',
        'd1',
        'd0',
      ]);
      await server.stop();
      await eventually(() => client.status !== 'ready', 5000);
      expect(() => recorder.record(entry('r1', 7))).not.toThrow();
      await expect(recorder.flush()).resolves.toBeUndefined();
      await expect(recorder.close()).resolves.toBeUndefined();
    } finally {
      await store.close();
      client.disconnect();
      await server.stop().catch(() => undefined);
    }
  });
});
