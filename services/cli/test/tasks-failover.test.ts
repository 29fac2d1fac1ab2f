import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectDevice, type TestDevice } from '@hitl/inquiry/testing';
import type { DeviceAck } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClient, type NodeProcess, spawnNode, token } from './node-process.js';

/*
 * MCP tasks on many nodes: a task lives in Redis, so any node answers for it, also once the node
 * that created it is dead (kill -9, no drain); without Redis it lives in the state file.
 */
describe('a task outlives the node that created it', () => {
  let redis: TestRedisServer;
  let nodes: NodeProcess[] = [];
  const devices: TestDevice[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    nodes = await Promise.all([0, 1].map(() => spawnNode({ REDIS_URL: redis.url })));
  }, 60_000);
  afterAll(async () => {
    for (const device of devices) device.socket.disconnect();
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await redis?.stop();
  });

  it('created on node 1, which is killed; polled, answered and collected on node 2', async () => {
    const [first, second] = nodes as [NodeProcess, NodeProcess];
    const user = 'task-failover';
    const device = await connectDevice(second.url, await token(user, 'device'), 'phone');
    devices.push(device);
    await device.synced;

    const creator = await mcpClient(first.url, user);
    const { task } = await creator.request(
      { method: 'tools/call', params: { name: 'send_inquiry', arguments: { question: 'Still there?' } } },
      CreateTaskResultSchema,
      { task: { ttl: 600_000 } },
    );
    expect(task.status).toBe('working');
    const pushed = await device.nextNew();
    expect(pushed.question).toBe('Still there?');

    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    await creator.close().catch(() => undefined);

    const survivor = await mcpClient(second.url, user);
    expect(await survivor.experimental.tasks.getTask(task.taskId)).toMatchObject({
      taskId: task.taskId,
      status: 'working',
      ttl: 600_000,
    });
    expect((await survivor.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);

    const result = survivor.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const ack = await device.emit<DeviceAck>('inquiry:answer', {
      inquiryId: pushed.inquiryId,
      response: 'yes',
    });
    expect(ack).toEqual({ ok: true, status: 'answered' });
    const answered = (await result) as CallToolResult;
    expect(answered.structuredContent).toMatchObject({
      inquiryId: pushed.inquiryId,
      status: 'answered',
      answer: 'yes',
      resolvedBy: { kind: 'human', deviceName: 'phone' },
    });
    expect(await survivor.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    // Another user on the surviving node still cannot see it.
    const stranger = await mcpClient(second.url, 'task-stranger');
    await expect(stranger.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await Promise.all([survivor.close(), stranger.close()]);
  }, 60_000);
});

describe('a task outlives a restart of a node without Redis', () => {
  it('is still there, working, and answerable after kill -9 and a start on the same state dir', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'hitl-task-restart-'));
    const user = 'task-restart';
    try {
      const before = await spawnNode({ HITL_STATE_DIR: stateDir });
      const creator = await mcpClient(before.url, user);
      const { task } = await creator.request(
        { method: 'tools/call', params: { name: 'send_inquiry', arguments: { question: 'After restart?' } } },
        CreateTaskResultSchema,
        { task: { ttl: 600_000 } },
      );
      await before.kill('SIGKILL');
      await creator.close().catch(() => undefined);

      const after = await spawnNode({ HITL_STATE_DIR: stateDir });
      try {
        const device = await connectDevice(after.url, await token(user, 'device'), 'laptop');
        const synced = await device.synced;
        const inquiry = synced.inquiries.find((i) => i.question === 'After restart?');
        expect(inquiry).toBeDefined();
        const client = await mcpClient(after.url, user);
        expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
        const result = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        await device.emit('inquiry:answer', { inquiryId: inquiry?.inquiryId, response: 'kept' });
        expect((await result).structuredContent).toMatchObject({ status: 'answered', answer: 'kept' });
        device.socket.disconnect();
        await client.close();
      } finally {
        await after.kill('SIGKILL');
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 60_000);
});
