import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectDevice,
  ledgerBackend,
  scratchDir,
  startTestProxy,
  startWorld,
  type TestProxy,
  type World,
} from './harness.js';

/**
 * A two-person rule in the proxy's policy: `charge` needs two approvals from the
 * `treasury` team before the backend runs it once; one approval alone runs nothing.
 */
const DIRECTORY = {
  users: { lea: {}, max: {}, noa: {} },
  teams: { treasury: { members: ['lea', 'max', 'noa'], askers: ['agent-user'] } },
};
const POLICY = {
  mode: 'gated',
  tools: { charge: { approvers: { team: 'treasury' }, quorum: 2 } },
};

const dir = scratchDir('proxy-quorum-');
let world: World;
let proxy: TestProxy;
let ledger: Awaited<ReturnType<typeof ledgerBackend>>;

beforeAll(async () => {
  const file = join(dir(), 'directory.json');
  await writeFile(file, JSON.stringify(DIRECTORY));
  world = await startWorld('redis', { HITL_DIRECTORY_FILE: file });
  ledger = await ledgerBackend(dir());
  proxy = await startTestProxy(world, ledger.spec, POLICY);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await world?.close();
});

describe('a two-person tool behind the proxy', () => {
  it('runs only after two different people approved; one approval runs nothing', async () => {
    const [lea, max, noa] = await Promise.all([
      connectDevice(world, 'lea', 'lea phone'),
      connectDevice(world, 'max', 'max laptop'),
      connectDevice(world, 'noa', 'noa phone'),
    ]);
    const agent = await proxy.agent('agent-user');
    const call = agent.callTool({ name: 'charge', arguments: { amount: 500 } }, undefined, {
      timeout: 60_000,
    });
    const [inquiry] = await Promise.all([lea.nextInquiry(), max.nextInquiry(), noa.nextInquiry()]);
    expect(inquiry).toMatchObject({ kind: 'approval', quorum: 2, action: { tool: 'charge' } });
    const id = inquiry?.inquiryId ?? '';
    expect(await lea.answer(id, 'approve')).toMatchObject({ ok: true, status: 'pending' });
    // The same person again does not count twice.
    expect(await lea.answer(id, 'approve')).toMatchObject({ ok: false, error: { code: 'already_voted' } });
    // time itself is under test: one approval runs nothing, for a while.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await ledger.entries()).toEqual([]);
    expect(await max.answer(id, 'approve')).toMatchObject({ ok: true, status: 'answered' });
    const result = await call;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(await ledger.entries()).toHaveLength(1);
  });

  it('one approval and a reject: the backend never runs', async () => {
    const [lea, noa] = await Promise.all([
      connectDevice(world, 'lea', 'lea tab'),
      connectDevice(world, 'noa', 'noa tab'),
    ]);
    const before = (await ledger.entries()).length;
    const agent = await proxy.agent('agent-user');
    const call = agent.callTool({ name: 'charge', arguments: { amount: 900 } }, undefined, {
      timeout: 60_000,
    });
    const inquiry = await lea.nextInquiry();
    await noa.nextInquiry();
    await lea.answer(inquiry.inquiryId, 'approve');
    await noa.answer(inquiry.inquiryId, 'reject');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/declined|rejected/i);
    expect((await ledger.entries()).length).toBe(before);
  });
});
