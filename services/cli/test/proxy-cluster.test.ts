import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceInquiry } from '@hitl/protocol';
import { startRedisCluster, type TestRedisCluster } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  deviceHeaders as headersOf,
  ledgerEntries,
  ledgerProxyArgs,
  type NodeProcess,
  spawnNode,
  spawnProxy,
  testProcesses,
  textOf,
} from './node-process.js';

describe('two approval proxies on a 3-master Redis Cluster (only REDIS_CLUSTER_NODES set)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-proxy-cluster-'));
  const ledger = join(dir, 'ledger.txt');
  const user = 'cluster-payer';
  const { keep, agentOf, stopAll } = testProcesses(user);
  let cluster: TestRedisCluster;
  let node: NodeProcess;
  let proxies: NodeProcess[] = [];

  const entries = () => ledgerEntries(ledger);
  const deviceHeaders = () => headersOf(user);
  const approvalFor = async (tool: string) => {
    let found: DeviceInquiry | undefined;
    await eventually(async () => {
      const response = await fetch(`${node.url}/api/inquiries`, { headers: await deviceHeaders() });
      const { items } = (await response.json()) as { items: DeviceInquiry[] };
      found = items.find((i) => i.kind === 'approval' && i.action?.tool === tool);
      return found !== undefined;
    }, 15_000);
    return found as DeviceInquiry;
  };

  beforeAll(async () => {
    writeFileSync(ledger, '');
    cluster = await startRedisCluster();
    const shared = { REDIS_CLUSTER_NODES: cluster.seeds };
    node = await spawnNode(shared);
    keep(node);
    // Each proxy has a state dir of its own (spawnProxy makes one): only the cluster is shared.
    const args = ledgerProxyArgs(node.url);
    proxies = await Promise.all([0, 1].map(() => spawnProxy(args, { ...shared, LEDGER_FILE: ledger })));
    keep(...proxies);
  }, 60_000);
  afterAll(async () => {
    await stopAll();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an operation approved and run through one proxy is known to the other, which replays it without running it again', async () => {
    const [a, b] = [await agentOf(proxies[0] as NodeProcess), await agentOf(proxies[1] as NodeProcess)];
    const first = a.callTool({
      name: 'charge',
      arguments: { amount: 42 },
      _meta: { idempotencyKey: 'pay-42' },
    });
    const asked = await approvalFor('charge');
    const answered = await fetch(`${node.url}/api/inquiries/${asked.inquiryId}/answer`, {
      method: 'POST',
      headers: await deviceHeaders(),
      body: JSON.stringify({ response: 'approve' }),
    });
    expect(answered.status).toBe(200);
    expect(textOf(await first)).toBe('charged 42 (entry 1)');

    // Proxy B sees the operation proxy A finished, through the cluster.
    const status = (await b.callTool({
      name: 'get_operation_status',
      arguments: { idempotencyKey: 'pay-42' },
    })) as unknown as { structuredContent: { status: string } };
    expect(status.structuredContent).toMatchObject({ status: 'done' });
    const again = await b.callTool({
      name: 'charge',
      arguments: { amount: 42 },
      _meta: { idempotencyKey: 'pay-42' },
    });
    expect(textOf(again)).toBe('charged 42 (entry 1)');
    expect(again._meta).toMatchObject({ idempotencyKey: 'pay-42', replayed: true });
    expect(entries()).toEqual([expect.objectContaining({ amount: 42 })]);
  }, 90_000);
});
