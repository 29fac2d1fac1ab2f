import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressProblem,
  BlockedTargetError,
  guardedLookup,
  hostProblem,
  outboundPost,
} from '../src/index.js';

/** Issue 34, finding 8: one guard for every outbound target (webhooks, push, later Slack). */

describe('addressProblem', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.254', 'reserved'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', '2000::/3'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
  ])('refuses %s (%s)', (address, why) => {
    const problem = addressProblem(address);
    expect(problem).toBeDefined();
    if (why !== 'site-local') expect(problem).toContain(why);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.128.0.1',
    '198.20.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('lets %s through', (address) => {
    expect(addressProblem(address)).toBeUndefined();
  });
});

describe('hostProblem', () => {
  it.each([
    'localhost',
    'localhost.',
    'LOCALHOST',
    'api.localhost',
    'api.localhost.',
    '[::1]',
    '127.0.0.1',
    '[64:ff9b::a9fe:a9fe]',
  ])('refuses %s', (host) => {
    expect(hostProblem(host)).toBeDefined();
  });
  it.each(['push.example.com', 'fcm.googleapis.com', '8.8.8.8', '[2606:4700:4700::1111]'])(
    'leaves %s to the connect check',
    (host) => {
      expect(hostProblem(host)).toBeUndefined();
    },
  );
});

describe('the check on connect', () => {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  let port = 0;
  const replies = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(202, { 'retry-after': '7' }).end('accepted'));
  });
  let httpPort = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => replies.listen(0, '127.0.0.1', resolve));
    httpPort = (replies.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.close();
    replies.close();
  });

  it('refuses a name that resolves to loopback (or rebinds to it) before connecting', async () => {
    // A name that first resolved to a public address now resolves to loopback (DNS rebinding).
    const rebinding = guardedLookup('HITL_TEST_ALLOW', (_name, callback) =>
      callback(null, [
        { address: '8.8.8.8', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ]),
    );
    const error = await new Promise<Error>((resolve) => {
      const socket = connect({ host: 'rebound.example', port, lookup: rebinding });
      socket.on('error', resolve);
      socket.on('connect', () => resolve(new Error('connected')));
    });
    expect(error).toBeInstanceOf(BlockedTargetError);
    expect(error.message).toMatch(/rebound\.example resolves to 127\.0\.0\.1: .*loopback.*HITL_TEST_ALLOW/);
    expect(connections).toBe(0);
  });

  it('outboundPost refuses a literal private address, and lets an allow-listed one through', async () => {
    const refused = await outboundPost(`http://127.0.0.1:${port}/x`, {
      headers: {},
      body: '{}',
      allowHosts: [],
      allowName: 'HITL_TEST_ALLOW',
    });
    expect(refused).toMatchObject({
      blocked: true,
      error: expect.stringMatching(/loopback.*HITL_TEST_ALLOW/),
    });
    expect(connections).toBe(0);

    const allowed = await outboundPost(`http://127.0.0.1:${httpPort}/x`, {
      headers: { 'content-type': 'application/json' },
      body: '{}',
      allowHosts: ['127.0.0.1'],
      allowName: 'HITL_TEST_ALLOW',
      keepTextChars: 100,
    });
    expect(allowed).toMatchObject({ status: 202, text: 'accepted', headers: { 'retry-after': '7' } });
  });

  it('outboundPost refuses localhost by name, also with a trailing dot', async () => {
    for (const host of ['localhost', 'localhost.']) {
      const reply = await outboundPost(`http://${host}:${port}/x`, {
        headers: {},
        body: '{}',
        allowHosts: [],
        allowName: 'HITL_TEST_ALLOW',
      });
      expect(reply).toMatchObject({ blocked: true });
    }
    expect(connections).toBe(0);
  });
});
