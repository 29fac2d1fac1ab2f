import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceInquiry } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  deviceHeaders as headersOf,
  ledgerEntries,
  ledgerProxyArgs,
  type NodeProcess,
  sleep,
  spawnNode,
  spawnProxy,
  testProcesses,
  textOf,
} from './node-process.js';

type Status = { status: string; result?: CallToolResult; error?: unknown };

describe('the approval proxy on its SQLite store across kill -9 (real processes, one state dir)', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'hitl-proxy-durable-'));
  const ledger = join(stateDir, 'ledger.txt');
  const user = 'payer';
  const { keep, agentOf, stopAll } = testProcesses(user);
  let node: NodeProcess;
  let proxy: NodeProcess;
  const proxyEnv = { HITL_STATE_DIR: stateDir, LEDGER_FILE: ledger };
  // `charge` takes edits of its amount before approval (the rest of the policy is the default).
  const policy = join(stateDir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ tools: { charge: { editable: ['amount'] } } }));
  const startProxy = async () => {
    const running = await spawnProxy([...ledgerProxyArgs(node.url), '--policy', policy], proxyEnv);
    keep(running);
    return running;
  };
  const call = (agent: Client, name: string, args: Record<string, unknown>, idempotencyKey: string) =>
    agent.callTool({ name, arguments: args, _meta: { idempotencyKey } }, undefined, {
      timeout: 120_000,
    }) as Promise<CallToolResult>;
  const status = async (agent: Client, idempotencyKey: string) =>
    (
      (await agent.callTool({
        name: 'get_operation_status',
        arguments: { idempotencyKey },
      })) as unknown as { structuredContent: Status }
    ).structuredContent;
  const entries = () => ledgerEntries(ledger);
  const deviceHeaders = () => headersOf(user);
  const pendingApprovals = async (): Promise<DeviceInquiry[]> => {
    const response = await fetch(`${node.url}/api/inquiries`, { headers: await deviceHeaders() });
    const { items } = (await response.json()) as { items: DeviceInquiry[] };
    return items.filter((i) => i.kind === 'approval');
  };
  /** Waits for the approval question of `tool` with `amount` that is not in `skip`. */
  const approvalFor = async (tool: string, amount: number, skip: string[] = []) => {
    let found: DeviceInquiry | undefined;
    await eventually(async () => {
      found = (await pendingApprovals()).find(
        (i) =>
          i.action?.tool === tool &&
          (i.action.arguments as { amount?: number }).amount === amount &&
          !skip.includes(i.inquiryId),
      );
      return found !== undefined;
    }, 15_000);
    return found as DeviceInquiry;
  };
  const approve = async (inquiryId: string, edit?: Record<string, unknown>) => {
    const response = await fetch(`${node.url}/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      headers: await deviceHeaders(),
      body: JSON.stringify({ response: 'approve', ...(edit ? { arguments: edit } : {}) }),
    });
    expect(response.status).toBe(200);
  };
  const restart = async () => {
    expect(await proxy.kill('SIGKILL')).toBe('SIGKILL');
    proxy = await startProxy();
    return agentOf(proxy);
  };

  beforeAll(async () => {
    writeFileSync(ledger, '');
    // The inquiry node and the proxy share the state dir, as they do by default (~/.hitl).
    node = await spawnNode({ HITL_STATE_DIR: stateDir });
    keep(node);
    proxy = await startProxy();
  });
  afterAll(async () => {
    await stopAll();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('replays a finished call after kill -9 without running it again; a second proxy on the dir refuses', async () => {
    const agent = await agentOf(proxy);
    const first = call(agent, 'charge', { amount: 42 }, 'pay-42');
    await approve((await approvalFor('charge', 42)).inquiryId);
    expect(textOf(await first)).toBe('charged 42 (entry 1)');
    expect(entries()).toEqual([expect.objectContaining({ amount: 42 })]);

    const agent2 = await restart();
    // A second proxy process on the same state dir refuses at once, saying why (exit code 2).
    await expect(startProxy()).rejects.toThrow(
      /exited \(2\).*proxy\.db is in use by process \d+: only one hitl proxy may run on a state directory/s,
    );

    const again = await call(agent2, 'charge', { amount: 42 }, 'pay-42');
    expect(textOf(again)).toBe('charged 42 (entry 1)');
    expect(again._meta).toMatchObject({ idempotencyKey: 'pay-42', replayed: true });
    expect(await status(agent2, 'pay-42')).toMatchObject({
      status: 'done',
      result: { content: [{ type: 'text', text: 'charged 42 (entry 1)' }] },
    });
    expect(entries()).toHaveLength(1);
    expect((await pendingApprovals()).filter((i) => i.action?.tool === 'charge')).toEqual([]);
  }, 90_000);

  it('a call waiting for approval at the kill: the retry collects the approval given while the proxy was down, and runs once', async () => {
    const agent = await agentOf(proxy);
    void call(agent, 'charge', { amount: 7 }, 'pay-7').catch(() => undefined);
    const asked = await approvalFor('charge', 7);
    await eventually(async () => (await status(agent, 'pay-7')).status === 'awaiting_approval');

    expect(await proxy.kill('SIGKILL')).toBe('SIGKILL');
    // The person approves while the proxy is down: the inquiry node records it, nothing runs yet.
    await approve(asked.inquiryId);
    proxy = await startProxy();
    const agent2 = await agentOf(proxy);
    // time itself is under test: the restarted proxy runs nothing on its own, for a while.
    await sleep(1000);
    expect(entries().filter((e) => e.amount === 7)).toEqual([]);
    expect(await status(agent2, 'pay-7')).toMatchObject({ status: 'awaiting_approval' });
    // The retry adopts the parked operation at once (no lease to wait out) and collects that approval:
    // no second question (nobody answers one here), one execution.
    const retried = await call(agent2, 'charge', { amount: 7 }, 'pay-7');
    expect(textOf(retried)).toMatch(/^charged 7 /);
    expect(await status(agent2, 'pay-7')).toMatchObject({ status: 'done' });
    expect(textOf(await call(agent2, 'charge', { amount: 7 }, 'pay-7'))).toMatch(/^charged 7 /);
    expect(entries().filter((e) => e.amount === 7)).toHaveLength(1);
    expect((await pendingApprovals()).filter((i) => i.action?.tool === 'charge')).toEqual([]);
  }, 90_000);

  it('an approval edited while the proxy was down: the retry runs the edited call, once', async () => {
    const agent = await agentOf(proxy);
    void call(agent, 'charge', { amount: 900 }, 'pay-900').catch(() => undefined);
    const asked = await approvalFor('charge', 900);
    await eventually(async () => (await status(agent, 'pay-900')).status === 'awaiting_approval');
    expect(await proxy.kill('SIGKILL')).toBe('SIGKILL');
    await approve(asked.inquiryId, { amount: 90 });
    proxy = await startProxy();
    const agent2 = await agentOf(proxy);
    const retried = await call(agent2, 'charge', { amount: 900 }, 'pay-900');
    expect(textOf(retried)).toContain('with their own edits (changed: amount)');
    expect(retried._meta?.['hitl/approval']).toEqual({
      editedArguments: { amount: 90 },
      changed: ['amount'],
    });
    expect(textOf(await call(agent2, 'charge', { amount: 900 }, 'pay-900'))).toContain('changed: amount');
    expect(entries().filter((e) => e.amount === 90)).toHaveLength(1);
    expect(entries().filter((e) => e.amount === 900)).toEqual([]);
  }, 90_000);

  it('a call running in the backend at the kill: it never runs again under its key, and says its outcome is unknown', async () => {
    const agent = await agentOf(proxy);
    void call(agent, 'settle', { amount: 9, delayMs: 15_000 }, 'settle-9').catch(() => undefined);
    await approve((await approvalFor('settle', 9)).inquiryId);
    await eventually(() => entries().some((e) => e.settling === 9), 15_000);

    const agent2 = await restart();
    const retried = await call(agent2, 'settle', { amount: 9, delayMs: 15_000 }, 'settle-9');
    expect(retried.isError).toBe(true);
    expect(textOf(retried)).toMatch(/whether it took effect is unknown/);
    expect(await status(agent2, 'settle-9')).toMatchObject({ status: 'done', result: { isError: true } });
    // time itself is under test: it does not start again, for a while (one start only; the orphaned
    // backend may still finish the one it had begun).
    await sleep(1000);
    expect(entries().filter((e) => e.settling === 9)).toHaveLength(1);
    expect((await pendingApprovals()).filter((i) => i.action?.tool === 'settle')).toEqual([]);
  }, 90_000);
});
