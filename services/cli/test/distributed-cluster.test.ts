import { connectDevice } from '@hitl/inquiry/testing';
import type { DeviceAck, InquiryResult } from '@hitl/protocol';
import { startRedisCluster, type TestRedisCluster } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClient, type NodeProcess, spawnNode, token } from './node-process.js';

describe('two nodes on a 3-master Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let nodes: NodeProcess[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
    nodes = await Promise.all([0, 1].map(() => spawnNode({ REDIS_CLUSTER_NODES: cluster.seeds })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await cluster?.stop();
  });

  it('a call held on node A resumes with the answer a device gives on node B; devices on both see it', async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    const users = ['cluster-1', 'cluster-2', 'cluster-3', 'cluster-4'];
    for (const user of users) {
      const onA = await connectDevice(a.url, await token(user, 'device'), 'desktop');
      const onB = await connectDevice(b.url, await token(user, 'device'), 'phone');
      await Promise.all([onA.synced, onB.synced]);
      const call = (await mcpClient(a.url, user)).callTool({
        name: 'send_inquiry',
        arguments: { question: `Which size, ${user}?`, options: ['S', 'M'] },
      });
      const [seenA, seenB] = await Promise.all([onA.nextNew(), onB.nextNew()]);
      expect(seenB.inquiryId).toBe(seenA.inquiryId);
      const ack = await onB.emit<DeviceAck>('inquiry:answer', { inquiryId: seenB.inquiryId, response: 'M' });
      expect(ack).toEqual({ ok: true, status: 'answered' });
      const result = (await call).structuredContent as InquiryResult;
      expect(result).toMatchObject({ inquiryId: seenA.inquiryId, status: 'answered', answer: 'M' });
      expect((await onA.nextResolved()).resolvedBy).toMatchObject({ kind: 'human', deviceName: 'phone' });
      onA.socket.disconnect();
      onB.socket.disconnect();
    }
  }, 60_000);
});
