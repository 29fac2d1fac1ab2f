import { connectDevice } from '@hitl/inquiry/testing';
import type { InquiryResolvedEvent, InquiryResult } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, gauge, mcpClient, type NodeProcess, sleep, spawnNode, token } from './node-process.js';

const TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '5000',
  HITL_SERVICE_TIMEOUT_MS: '8000',
  HITL_CLIENT_TIMEOUT_MS: '12000',
};
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;
const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? '';

describe('failures with several nodes', () => {
  let redis: TestRedisServer;
  const started: NodeProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const node = await spawnNode({ REDIS_URL: redis.url, HITL_SWEEP_MS: '200', ...TIERS, ...env });
    started.push(node);
    return node;
  };
  beforeAll(async () => {
    redis = await startRedisServer({ appendonly: true });
  });
  afterAll(async () => {
    await Promise.all(started.map((node) => node.kill('SIGKILL')));
    await redis?.stop();
  });

  it('kill -9 of the node holding a call: a retry with the same key elsewhere gets the answer given meanwhile', async () => {
    const [a, b, c] = await Promise.all([start(), start(), start()]);
    const user = 'killed';
    const device = await connectDevice(c.url, await token(user, 'device'), 'phone');
    await device.synced;
    const args = { question: 'Delete the 3 invoices?', idempotencyKey: 'invoices-3' };
    const held = (await mcpClient(a.url, user))
      .callTool({ name: 'send_inquiry', arguments: args })
      .catch((e) => e);
    const pushed = await device.nextNew();
    expect(await a.kill('SIGKILL')).toBe('SIGKILL');
    void held; // its connection died with the node; the agent's retry below is what counts
    // Nobody holds the call now; the answer is still recorded.
    expect(await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: 'yes' })).toEqual({
      ok: true,
      status: 'answered',
    });
    const retried = await (await mcpClient(b.url, user)).callTool({ name: 'send_inquiry', arguments: args });
    expect(structured(retried)).toMatchObject({
      inquiryId: pushed.inquiryId,
      status: 'answered',
      answer: 'yes',
    });
    device.socket.disconnect();
  }, 60_000);

  it('deadline sweep: inquiries of a dead node are resolved once, at their deadline, by the live nodes racing', async () => {
    const [a, b, c] = await Promise.all([start(), start(), start()]);
    const user = 'orphans';
    const watcher = await connectDevice(b.url, await token(user, 'device'), 'watcher');
    await watcher.synced;
    const client = await mcpClient(a.url, user);
    for (let i = 0; i < 10; i++) {
      void client
        .callTool({ name: 'send_inquiry', arguments: { question: `orphan ${i}`, timeoutMs: 1500 } })
        .catch(() => {});
    }
    const ids = await Promise.all(
      Array.from({ length: 10 }, async () => (await watcher.nextNew()).inquiryId),
    );
    await a.kill('SIGKILL');
    const resolutions = () =>
      watcher.received
        .filter((r) => r.event === 'inquiry:resolved')
        .map((r) => r.payload as InquiryResolvedEvent);
    await eventually(() => resolutions().length >= ids.length, 20_000);
    // time itself is under test: no second resolution of any of them comes, for a while.
    await sleep(500);
    const resolved = resolutions();
    expect(resolved.map((r) => r.inquiryId).sort()).toEqual([...ids].sort());
    expect(resolved.every((r) => r.status === 'timed_out' && r.resolvedBy.kind === 'service-timer')).toBe(
      true,
    );
    const reader = await mcpClient(c.url, user);
    for (const inquiryId of ids) {
      const result = await reader.callTool({ name: 'get_inquiry', arguments: { inquiryId } });
      expect(structured(result)).toMatchObject({
        status: 'timed_out',
        resolvedBy: { kind: 'service-timer' },
      });
    }
    watcher.socket.disconnect();
  }, 60_000);

  it('SIGTERM drains: held calls answer pending with the get_inquiry hint, the process exits 0', async () => {
    const [a, b] = await Promise.all([start({ HITL_DRAIN_MS: '500' }), start()]);
    const user = 'drained';
    const device = await connectDevice(b.url, await token(user, 'device'), 'phone');
    await device.synced;
    const held = (await mcpClient(a.url, user)).callTool({
      name: 'send_inquiry',
      arguments: { question: 'Drain?' },
    });
    const pushed = await device.nextNew();
    await eventually(async () => (await gauge(a.url, 'hitl_held_calls')) === 1);
    expect(await a.kill('SIGTERM')).toBe(0);
    const result = await held;
    expect(structured(result)).toMatchObject({ inquiryId: pushed.inquiryId, status: 'pending' });
    expect(text(result)).toContain('get_inquiry');
    await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: 'later' });
    const later = await (await mcpClient(b.url, user)).callTool({
      name: 'get_inquiry',
      arguments: { inquiryId: pushed.inquiryId },
    });
    expect(structured(later)).toMatchObject({ status: 'answered', answer: 'later' });
    device.socket.disconnect();
  }, 60_000);

  it('Redis restarted mid-wait: not ready, new calls refused as retryable, then the held call still resumes', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const user = 'blip';
    const device = await connectDevice(b.url, await token(user, 'device'), 'phone');
    await device.synced;
    const agentA = await mcpClient(a.url, user);
    const agentB = await mcpClient(b.url, user);
    const done = agentB.callTool({ name: 'send_inquiry', arguments: { question: 'Before the blip' } });
    const earlier = (await device.nextNew()).inquiryId;
    await device.emit('inquiry:answer', { inquiryId: earlier, response: 'settled' });
    expect(structured(await done)).toMatchObject({ status: 'answered', answer: 'settled' });

    const held = agentA.callTool({ name: 'send_inquiry', arguments: { question: 'Across the blip?' } });
    const pushed = await device.nextNew();
    // time itself is under test: with appendfsync everysec, what was written over a second ago
    // survives a crash (docs/OPERATIONS.md).
    await sleep(1500);
    await redis.kill();
    await eventually(async () => (await fetch(`${a.url}/readyz`)).status === 503);
    const refused = await agentB
      .callTool({ name: 'send_inquiry', arguments: { question: 'During the blip' } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).data).toMatchObject({ code: 'unavailable' });

    await redis.restart();
    await eventually(async () => (await fetch(`${a.url}/readyz`)).status === 200, 20_000);
    await eventually(async () => (await fetch(`${b.url}/readyz`)).status === 200, 20_000);
    const ack = await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: 'after' });
    expect(ack).toEqual({ ok: true, status: 'answered' });
    expect(structured(await held)).toMatchObject({
      inquiryId: pushed.inquiryId,
      status: 'answered',
      answer: 'after',
    });
    const before = await agentB.callTool({ name: 'get_inquiry', arguments: { inquiryId: earlier } });
    expect(structured(before)).toMatchObject({ status: 'answered', answer: 'settled' });
    device.socket.disconnect();
  }, 90_000);
});
