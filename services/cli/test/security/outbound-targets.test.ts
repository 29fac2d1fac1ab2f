import { createECDH, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, isIP, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Delivery } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, rpcPost, spawnNode, token } from '../node-process.js';

/**
 * Finding 8 (issue 34): one address guard for every target the node sends to. Push endpoints were
 * checked more weakly than webhooks (shared, reserved, multicast, NAT64 and site-local addresses,
 * `localhost.`), and a push endpoint whose name resolves to loopback was connected to. No traffic
 * leaves loopback here: the refused literals are refused before any connection, and the
 * "resolves to loopback" name is one this machine resolves to loopback only (checked first).
 */

/** A name other than `localhost` that resolves to loopback addresses only, or undefined. */
async function loopbackName(): Promise<string | undefined> {
  for (const name of [hostname(), 'localhost.localdomain', 'ip6-localhost']) {
    if (!name || name === 'localhost' || isIP(name)) continue;
    const found = await lookup(name, { all: true }).catch(() => []);
    const loopback = (a: string) => a.startsWith('127.') || a === '::1';
    if (found.length > 0 && found.every((a) => loopback(a.address))) return name;
  }
  return undefined;
}

/** A TCP listener on 127.0.0.1 that only counts the connections it gets (and closes them). */
async function countingListener(): Promise<{
  port: number;
  connections: () => number;
  close(): Promise<void>;
}> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser-like subscription body for `endpoint` (a real P-256 key, a random auth secret). */
function subscription(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

const name = await loopbackName();

describe('security: outbound targets (webhooks and push) pass one address guard', () => {
  let node: NodeProcess;
  let dir: string;
  let listener: Awaited<ReturnType<typeof countingListener>>;
  const user = `outbound-${randomBytes(3).toString('hex')}`;
  const refused = `refused-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    listener = await countingListener();
    dir = await mkdtemp(join(tmpdir(), 'hitl-outbound-'));
    const file = join(dir, 'directory.json');
    const webhooks = name
      ? [
          {
            url: `https://${name}:${listener.port}/hook`,
            secret: `whsec_${randomBytes(24).toString('base64')}`,
            events: ['inquiry.created'],
            users: [user],
          },
        ]
      : [];
    await writeFile(file, JSON.stringify({ webhooks }));
    node = await spawnNode({ HITL_DIRECTORY_FILE: file, HITL_WEBHOOK_BACKOFF_MS: '60000' });
  });
  afterAll(async () => {
    await node?.kill();
    await listener?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Saves a subscription for `who` (default: the user the inquiry below is for). */
  const subscribe = async (endpoint: string, who = user) =>
    fetch(`${node.url}/api/push/subscriptions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token(who, 'device')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(subscription(endpoint)),
    });

  const unsubscribe = async (id: string, who: string) =>
    fetch(`${node.url}/api/push/subscriptions/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await token(who, 'device')}` },
    });

  it.each([
    ['shared address space (100.64/10)', 'https://100.64.0.1/push/x'],
    ['a cloud metadata address in 100.64/10', 'https://100.100.100.200/push/x'],
    ['IETF protocol assignments (192.0.0/24)', 'https://192.0.0.8/push/x'],
    ['benchmarking (198.18/15)', 'https://198.18.0.1/push/x'],
    ['IPv4 multicast', 'https://224.0.0.251/push/x'],
    ['IPv4 broadcast', 'https://255.255.255.255/push/x'],
    ['NAT64 of a link-local address', 'https://[64:ff9b::a9fe:a9fe]/push/x'],
    ['IPv6 site-local (fec0::/10)', 'https://[fec0::1]/push/x'],
    ['IPv6 multicast', 'https://[ff02::1]/push/x'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/push/x'],
    ['localhost with a trailing dot', 'https://localhost./push/x'],
  ])('refuses a push endpoint at %s, naming endpoint', async (_what, endpoint) => {
    // A user no inquiry is ever sent to: a subscription wrongly accepted is never pushed to.
    const response = await subscribe(endpoint, refused);
    const body = (await response.json()) as { id?: string; error?: { code: string; message: string } };
    if (body.id) await unsubscribe(body.id, refused);
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(body.error?.code).toBe('invalid_input');
    expect(body.error?.message).toMatch(/^endpoint: /);
  });

  it('still accepts a public https endpoint (nothing is sent to it here)', async () => {
    const response = await subscribe('https://push.example.com/send/abc', refused);
    expect(response.status).toBe(201);
    const id = ((await response.json()) as { id: string }).id;
    expect((await unsubscribe(id, refused)).status).toBe(204);
  });

  it.skipIf(!name)(
    'connects to no push endpoint or webhook whose name resolves to loopback, and records why (skipped when no name other than localhost resolves to loopback only on this machine)',
    async () => {
      const endpoint = `https://${name}:${listener.port}/push/abc`;
      // The name is not an address: it passes the first check; the address is checked on connect.
      expect((await subscribe(endpoint)).status).toBe(201);

      const controller = new AbortController();
      const call = rpcPost(
        node.url,
        user,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'send_inquiry', arguments: { question: 'Where does this go?', timeoutMs: 40_000 } },
        },
        controller.signal,
      ).catch(() => undefined);
      const ops = await token('outbound-ops', 'ops');
      const channels = async (): Promise<Delivery[]> => {
        const list = await fetch(`${node.url}/api/webhooks/deliveries?limit=10`, {
          headers: { authorization: `Bearer ${ops}` },
        });
        const webhooks = ((await list.json()) as { items: Delivery[] }).items;
        const inquiryId = webhooks[0]?.inquiryId;
        if (!inquiryId) return webhooks;
        const all = await fetch(`${node.url}/api/inquiries/${inquiryId}/channels`, {
          headers: { authorization: `Bearer ${ops}` },
        });
        return ((await all.json()) as { items: Delivery[] }).items;
      };
      let seen: Delivery[] = [];
      await eventually(async () => {
        seen = await channels();
        const ended = (channel: string) =>
          seen.some((d) => d.channel === channel && d.status === 'failed' && d.attempts.length > 0);
        // Today's push sender connects, fails and retries; so the wait covers its retries too.
        return (ended('push') && ended('webhook')) || listener.connections() > 0;
      }, 20_000);
      controller.abort();
      await call;

      expect(listener.connections()).toBe(0);
      const push = seen.find((d) => d.channel === 'push');
      const hook = seen.find((d) => d.channel === 'webhook');
      expect(push?.status).toBe('failed');
      expect(push?.attempts.at(-1)?.error).toMatch(/resolves to 127\.0\.0\.1|resolves to ::1/);
      // A refused address is final: no retry is scheduled.
      expect(push?.attempts).toHaveLength(1);
      expect(hook?.attempts.at(-1)?.error).toMatch(/resolves to 127\.0\.0\.1|resolves to ::1/);
      expect(hook?.status).toBe('failed');
    },
    40_000,
  );
});
