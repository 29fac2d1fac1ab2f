import { connectDevice, type TestDevice } from '@hitl/inquiry/testing';
import type { DeviceAck, InquiryResolvedEvent, InquiryResult } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, mcpClient, type NodeProcess, rpcPost, spawnNode, token } from './node-process.js';

const USERS = 20;
const INQUIRIES = 200;

describe('three nodes on one Redis', () => {
  let redis: TestRedisServer;
  let nodes: NodeProcess[] = [];
  const devices: TestDevice[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    nodes = await Promise.all([0, 1, 2].map(() => spawnNode({ REDIS_URL: redis.url })));
  }, 60_000);
  afterAll(async () => {
    for (const device of devices) device.socket.disconnect();
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await redis?.stop();
  });

  const node = (i: number) => nodes[i % nodes.length] as NodeProcess;

  it('200 inquiries: each call gets exactly its own first answer, every device sees each resolution once', async () => {
    const users = Array.from({ length: USERS }, (_, i) => `flow-${i}`);
    // Each user has two devices on two different nodes; answers race from both plus REST on a third.
    const byUser = new Map<string, TestDevice[]>();
    for (const [i, user] of users.entries()) {
      const pair = await Promise.all(
        [1, 2].map(async (k) => connectDevice(node(i + k).url, await token(user, 'device'), `d${k}`)),
      );
      await Promise.all(pair.map((d) => d.synced));
      devices.push(...pair);
      byUser.set(user, pair);
    }
    const wins = new Map<string, number>();
    const attempts = new Map<string, Set<string>>();
    const answerEverywhere = async (user: string, inquiryId: string, userIndex: number) => {
      const pair = byUser.get(user) ?? [];
      const candidates = [...pair.map((_d, k) => `${inquiryId}:d${k + 1}`), `${inquiryId}:rest`];
      attempts.set(inquiryId, new Set(candidates));
      const deviceAcks = pair.map((d, k) =>
        d.emit<DeviceAck>('inquiry:answer', { inquiryId, response: candidates[k] }),
      );
      const rest = fetch(`${node(userIndex + 3).url}/api/inquiries/${inquiryId}/answer`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await token(user, 'device')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ response: candidates[2] }),
      });
      const [acks, response] = await Promise.all([Promise.all(deviceAcks), rest]);
      const won = acks.filter((a) => a.ok).length + (response.status === 200 ? 1 : 0);
      expect(acks.every((a) => a.ok || a.error.code === 'already_resolved')).toBe(true);
      expect([200, 409]).toContain(response.status);
      wins.set(inquiryId, (wins.get(inquiryId) ?? 0) + won);
    };

    const clients = new Map<string, Client>();
    for (const [i, user] of users.entries()) {
      for (const k of [0, 1, 2]) clients.set(`${user}@${k}`, await mcpClient(node(k + i).url, user));
    }
    // Answer as soon as the first device of the user sees the question.
    const answered = new Set<string>();
    for (const [i, user] of users.entries()) {
      const first = byUser.get(user)?.[0];
      first?.socket.on('inquiry:new', (inquiry: { inquiryId: string }) => {
        if (answered.has(inquiry.inquiryId)) return;
        answered.add(inquiry.inquiryId);
        void answerEverywhere(user, inquiry.inquiryId, i);
      });
    }
    const calls = Array.from({ length: INQUIRIES }, async (_, n) => {
      const user = users[n % USERS] as string;
      const client = clients.get(`${user}@${n % 3}`) as Client;
      const result = await client.callTool(
        { name: 'send_inquiry', arguments: { question: `question ${n}` } },
        undefined,
        { timeout: 60_000 },
      );
      return result.structuredContent as InquiryResult;
    });
    const results = await Promise.all(calls);

    const ids = new Set(results.map((r) => r.inquiryId));
    expect(ids.size).toBe(INQUIRIES);
    for (const result of results) {
      expect(result.status).toBe('answered');
      const id = result.inquiryId as string;
      expect(attempts.get(id)?.has(result.answer as string)).toBe(true);
    }
    await eventually(() => wins.size === INQUIRIES);
    expect([...wins.values()].every((count) => count === 1)).toBe(true);
    // Every device of the user saw each of the user's inquiries resolved exactly once.
    await eventually(() =>
      devices.every(
        (d) => d.received.filter((r) => r.event === 'inquiry:resolved').length === INQUIRIES / USERS,
      ),
    );
    for (const device of devices) {
      const resolved = device.received
        .filter((r) => r.event === 'inquiry:resolved')
        .map((r) => (r.payload as InquiryResolvedEvent).inquiryId);
      expect(new Set(resolved).size).toBe(resolved.length);
    }
  }, 120_000);

  it('a notifications/cancelled that lands on another node cancels the call held elsewhere', async () => {
    const user = 'cancel-user';
    const device = await connectDevice(node(2).url, await token(user, 'device'), 'phone');
    devices.push(device);
    await device.synced;
    const call = await rpcPost(node(0).url, user, {
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: { name: 'send_inquiry', arguments: { question: 'Cancel me from elsewhere' } },
    });
    const pushed = await device.nextNew();
    const cancel = await rpcPost(node(1).url, user, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 42, reason: 'user pressed stop' },
    });
    expect(cancel.status).toBe(202);
    expect(await device.nextResolved()).toMatchObject({
      inquiryId: pushed.inquiryId,
      status: 'cancelled',
      resolvedBy: { kind: 'agent' },
    });
    // The held call on node 0 ends too, with the cancelled result.
    expect(await call.text()).toContain('"status":"cancelled"');
  }, 30_000);
});
