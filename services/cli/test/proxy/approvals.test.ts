import { eventually } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectDevice,
  ledgerBackend,
  scratchDir,
  startTestProxy,
  type TestProxy,
  textOf,
  useWorld,
} from './harness.js';

const world = useWorld('memory');
const dir = scratchDir('proxy-ledger-');

describe('gated mode in front of a destructive backend tool', () => {
  let t: TestProxy;
  let ledger: Awaited<ReturnType<typeof ledgerBackend>>;
  beforeAll(async () => {
    ledger = await ledgerBackend(dir());
    t = await startTestProxy(world(), ledger.spec, {
      mode: 'gated',
      tools: { note: { confidenceThreshold: 0.8 } },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs nothing when the human rejects, and says the human declined', async () => {
    const device = await connectDevice(world(), 'rita');
    const agent = await t.agent('rita');
    const call = agent.callTool({ name: 'charge', arguments: { amount: 500 }, _meta: { confidence: 0.99 } });
    const inquiry = await device.nextInquiry();
    expect(inquiry.action).toMatchObject({ server: 'ledger', tool: 'charge', arguments: { amount: 500 } });
    // The backend tool's input schema travels with it (the edit form, and what an edit is checked against).
    expect(inquiry.action?.inputSchema).toMatchObject({
      type: 'object',
      properties: { amount: { type: 'number' } },
    });
    await device.answer(inquiry.inquiryId, 'reject');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^The human declined this action: "charge" on ledger was not executed/);
    expect(await ledger.entries()).toEqual([]);
    expect(t.decisions.at(-1)).toMatchObject({ outcome: 'rejected', reason: 'destructive', userId: 'rita' });
    device.socket.disconnect();
  });

  it('treats a refusal as a reject', async () => {
    const device = await connectDevice(world(), 'rita2');
    const agent = await t.agent('rita2');
    const call = agent.callTool({ name: 'charge', arguments: { amount: 7 } });
    const inquiry = await device.nextInquiry();
    await device.refuse(inquiry.inquiryId);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('declined');
    expect(await ledger.entries()).toEqual([]);
    expect(t.decisions.at(-1)).toMatchObject({ outcome: 'refused' });
    device.socket.disconnect();
  });

  it('runs nothing when no human answers in time', async () => {
    const device = await connectDevice(world(), 'tom');
    const agent = await t.agent('tom');
    const started = Date.now();
    const result = await agent.callTool({ name: 'charge', arguments: { amount: 9 } });
    expect(device.seen).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^No human approved in time: "charge" on ledger was not executed/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(await ledger.entries()).toEqual([]);
    expect(t.decisions.at(-1)).toMatchObject({ outcome: 'timed_out', userId: 'tom' });
    device.socket.disconnect();
  });

  it('asks below the confidence threshold, or without one, and passes at or above it', async () => {
    const device = await connectDevice(world(), 'una');
    const agent = await t.agent('una');
    const sure = await agent.callTool({
      name: 'note',
      arguments: { text: 'sure' },
      _meta: { confidence: 0.8 },
    });
    expect(textOf(sure)).toBe('noted: sure');
    expect(device.seen).toHaveLength(0);
    for (const confidence of [0.79, 'high', undefined]) {
      const call = agent.callTool({
        name: 'note',
        arguments: { text: `c=${confidence}` },
        _meta: { confidence },
      });
      const inquiry = await device.nextInquiry();
      await device.answer(inquiry.inquiryId, 'approve');
      expect(textOf(await call)).toBe(`noted: c=${confidence}`);
    }
    expect(device.seen).toHaveLength(3);
    device.socket.disconnect();
  });

  it('relays approval heartbeats as increasing progress while the human decides', async () => {
    const device = await connectDevice(world(), 'vic');
    const agent = await t.agent('vic');
    const progress: number[] = [];
    const call = agent.callTool({ name: 'charge', arguments: { amount: 1 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    const inquiry = await device.nextInquiry();
    await eventually(() => progress.length >= 2);
    await device.answer(inquiry.inquiryId, 'approve');
    expect(textOf(await call)).toMatch(/^charged 1/);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);
    device.socket.disconnect();
  });

  it('cancels the approval and runs nothing when the agent cancels its call', async () => {
    const device = await connectDevice(world(), 'wes');
    const agent = await t.agent('wes');
    const before = (await ledger.entries()).length;
    const controller = new AbortController();
    const call = agent.callTool({ name: 'charge', arguments: { amount: 66 } }, undefined, {
      signal: controller.signal,
    });
    const inquiry = await device.nextInquiry();
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    const resolved = await new Promise<{ status: string }>((resolve) =>
      device.socket.once('inquiry:resolved', resolve),
    );
    expect(resolved).toMatchObject({ inquiryId: inquiry.inquiryId, status: 'cancelled' });
    expect(await device.answer(inquiry.inquiryId, 'approve')).toMatchObject({ ok: false });
    // time itself is under test: nothing runs for a while after the cancel.
    await new Promise((r) => setTimeout(r, 500));
    expect(await ledger.entries()).toHaveLength(before);
    device.socket.disconnect();
  });
});

describe('yolo and all modes', () => {
  it('runs a destructive call with no human in yolo mode, and logs the pass as a decision', async () => {
    const ledger = await ledgerBackend(dir());
    const t = await startTestProxy(world(), ledger.spec, { mode: 'yolo' });
    try {
      const device = await connectDevice(world(), 'yara');
      const agent = await t.agent('yara');
      expect(textOf(await agent.callTool({ name: 'charge', arguments: { amount: 3 } }))).toMatch(
        /^charged 3/,
      );
      expect(device.seen).toEqual([]);
      expect(await ledger.entries()).toHaveLength(1);
      expect(t.decisions).toEqual([
        expect.objectContaining({ outcome: 'passed', reason: 'mode_yolo', tool: 'charge', userId: 'yara' }),
      ]);
      device.socket.disconnect();
    } finally {
      await t.close();
    }
  });

  it('asks even for a read-only tool in mode all', async () => {
    const ledger = await ledgerBackend(dir());
    const t = await startTestProxy(world(), ledger.spec, { mode: 'all' });
    try {
      const device = await connectDevice(world(), 'zed');
      const agent = await t.agent('zed');
      const call = agent.callTool({ name: 'count', arguments: {} });
      const inquiry = await device.nextInquiry();
      expect(inquiry.action?.tool).toBe('count');
      await device.answer(inquiry.inquiryId, 'approve');
      expect(textOf(await call)).toBe('0');
      device.socket.disconnect();
    } finally {
      await t.close();
    }
  });
});
