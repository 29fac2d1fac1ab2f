import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, sleep, startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoomAwareAdapter } from '../src/socket/room-aware-adapter.js';

/** One Socket.IO server on the room-aware adapter; a client's `room` query joins it to that room. */
async function startSocketServer(url: string, name: string) {
  const pub = new Redis(url, { connectionName: name });
  const sub = pub.duplicate({ connectionName: `${name}-sub` });
  const http: HttpServer = createServer();
  const io = new Server(http, { adapter: createRoomAwareAdapter(pub, sub, { channelPrefix: 'test' }) });
  io.on('connection', (socket) => {
    void socket.join(String(socket.handshake.query.room));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    io,
    pub,
    sub,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await io.close();
      pub.disconnect();
      sub.disconnect();
    },
  };
}
type SocketServer = Awaited<ReturnType<typeof startSocketServer>>;

async function client(server: SocketServer, room: string): Promise<Socket> {
  const socket = connect(server.url, { query: { room }, transports: ['websocket'] });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return socket;
}

const next = (socket: Socket, event: string) =>
  new Promise<unknown>((resolve) => socket.once(event, (value: unknown) => resolve(value)));

describe('room-aware sharded adapter (two Socket.IO servers, one real Redis)', () => {
  let redis: TestRedisServer;
  let admin: Redis;
  let a: SocketServer;
  let b: SocketServer;
  const sockets: Socket[] = [];
  const spublishes = async () => {
    const stats = await admin.info('commandstats');
    return Number(/cmdstat_spublish:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  };
  const counts = async () => {
    const stats = await admin.info('commandstats');
    return Number(/cmdstat_pubsub\|shardnumsub:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  };
  const subscribers = async (room: string) =>
    Number(((await admin.call('PUBSUB', 'SHARDNUMSUB', `test#/#${room}#`)) as [string, number])[1]);

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    [a, b] = await Promise.all([startSocketServer(redis.url, 'a'), startSocketServer(redis.url, 'b')]);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await Promise.all([a?.close(), b?.close()]);
    admin?.disconnect();
    await redis?.stop();
  });

  it('an emit to a room only this node holds is delivered here and never published', async () => {
    const local = await client(a, 'solo');
    sockets.push(local);
    await eventually(async () => (await subscribers('solo')) === 1);
    const before = await spublishes();
    const got = next(local, 'ping');
    a.io.to('solo').emit('ping', 1);
    expect(await got).toBe(1);
    // An emit to a room nobody holds anywhere: not published either. Emits of one tick (an event to
    // its audience's rooms and the ops room) share one count.
    const countsBefore = await counts();
    a.io.to('nobody').emit('ping', 2);
    a.io.to('nobody-either').emit('ping', 2);
    await eventually(async () => (await counts()) > countsBefore);
    // time itself is under test: once they are counted, nothing is published for a while.
    await sleep(100);
    expect(await spublishes()).toBe(before);
    expect(await counts()).toBe(countsBefore + 1);
  });

  it('once another node holds the room, the emit is published and reaches it', async () => {
    const here = await client(a, 'shared');
    const there = await client(b, 'shared');
    sockets.push(here, there);
    await eventually(async () => (await subscribers('shared')) === 2);
    const before = await spublishes();
    const [gotHere, gotThere] = [next(here, 'ping'), next(there, 'ping')];
    a.io.to('shared').emit('ping', 3);
    expect(await gotHere).toBe(3);
    expect(await gotThere).toBe(3);
    expect(await spublishes()).toBe(before + 1);
    // From the node without a socket in the room, too.
    const remote = await client(b, 'only-a');
    sockets.push(remote);
    await eventually(async () => (await subscribers('only-a')) === 1);
    const gotRemote = next(remote, 'ping');
    a.io.to('only-a').emit('ping', 4);
    expect(await gotRemote).toBe(4);
  });

  it("after this node's subscriber connection drops, it publishes rather than trust a count without itself", async () => {
    const here = await client(a, 'blip');
    const there = await client(b, 'blip');
    sockets.push(here, there);
    await eventually(async () => (await subscribers('blip')) === 2);
    // Cut node A's subscriber: Redis now counts only node B, which the old count would mistake for A.
    const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const id = /id=(\d+) .*name=a-sub /.exec(clients)?.[1];
    expect(id).toBeDefined();
    await admin.client('KILL', 'ID', String(id));
    const gotThere = next(there, 'ping');
    a.io.to('blip').emit('ping', 5);
    expect(await gotThere).toBe(5);
    // Once it is back and its subscriptions are confirmed, its own rooms stay local again.
    await eventually(async () => (await subscribers('solo')) === 1 && (await subscribers('blip')) === 2);
    const solo = sockets[0] as Socket;
    await eventually(async () => {
      const before = await spublishes();
      const got = next(solo, 'ping');
      a.io.to('solo').emit('ping', 6);
      await got;
      return (await spublishes()) === before;
    });
  });
});
