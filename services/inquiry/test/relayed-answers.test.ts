import type { DeviceInquiry, InquiryResult } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamCluster, type TeamCluster, type TestDevice, type TestNode } from './harness.js';

/**
 * A device's answer to an inquiry its node relayed to it skips the read before the resolve (issue 21:
 * one command fewer a cycle); the resolve checks in its one step what that read checked. Two real
 * nodes on one redis-server, real socket.io devices, the official MCP client.
 */
const DIRECTORY = {
  users: { ann: { name: 'Ann' }, bob: { name: 'Bob' }, dan: { name: 'Dan' } },
  teams: { owners: { members: ['ann', 'bob'], askers: ['robot'] } },
};

type Ack = { ok: boolean; status?: string; error?: { code: string } };

let team: TeamCluster;
let a: TestNode;
let b: TestNode;
let admin: Redis;

beforeAll(async () => {
  team = await startTeamCluster(DIRECTORY);
  ({ a, b } = team);
  admin = new Redis(team.redisUrl);
}, 60_000);

afterAll(async () => {
  await admin?.quit();
  await team?.close();
});

/** Calls of a command so far on the shared server (INFO commandstats: scripts' inner calls too). */
async function calls(command: string): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

async function ask(node: TestNode, args: Record<string, unknown>) {
  const agent = await node.mcp('robot');
  return agent.callTool({ name: 'send_inquiry', arguments: args }, undefined, { timeout: 30_000 });
}

const answer = (device: TestDevice, inquiryId: string, response: unknown) =>
  device.emit<Ack>('inquiry:answer', { inquiryId, response });

describe('answers to relayed inquiries', () => {
  it('reads the inquiry once in all: in the resolve, not before it', async () => {
    const robot = await b.device('robot', 'robot phone');
    await robot.synced;
    const call = ask(a, { question: 'Ship it?', options: ['yes', 'no'] });
    const shown: DeviceInquiry = await robot.nextNew();
    const before = await calls('hmget');
    expect(await answer(robot, shown.inquiryId, 'yes')).toMatchObject({ ok: true, status: 'answered' });
    expect(await calls('hmget')).toBe(before + 1);
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({ inquiryId: shown.inquiryId, status: 'answered', answer: 'yes' });
  });

  it('keeps every check of the read it skips: audience, fit, already resolved', async () => {
    const ann = await b.device('ann', 'ann phone');
    const dan = await b.device('dan', 'dan phone');
    await Promise.all([ann.synced, dan.synced]);
    const call = ask(a, {
      question: 'Drop the table?',
      kind: 'approval',
      audience: { team: 'owners' },
      idempotencyKey: 'drop-1',
    });
    const shown = await ann.nextNew();
    // Node b relayed it (to Ann); Dan, on the same node, is not asked: not found for him.
    expect(await answer(dan, shown.inquiryId, 'approve')).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await answer(ann, shown.inquiryId, 'maybe')).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await answer(ann, shown.inquiryId, 'approve')).toMatchObject({ ok: true, status: 'answered' });
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({ status: 'answered', answer: 'approve' });
    // After the end: already resolved comes first, a fitting answer or not.
    for (const response of ['reject', 'maybe']) {
      expect(await answer(ann, shown.inquiryId, response)).toMatchObject({
        ok: false,
        error: { code: 'already_resolved' },
        status: 'answered',
      });
    }
    // The asker's keys ended with it though the answering node did not know them: its pending set
    // let go of it, and the idempotency key expires with the hash.
    const id = shown.inquiryId;
    const pendingSet = 'hitl:user:{u:robot}:pending';
    const idem = 'hitl:user:{u:robot}:idem:drop-1';
    const expiry = (key: string) => admin.call('PEXPIRETIME', key) as Promise<number>;
    await eventually(async () => (await admin.zscore(pendingSet, id)) === null);
    expect(await admin.get(idem)).toBe(id);
    expect(await expiry(idem)).toBeLessThanOrEqual(await expiry(`hitl:inq:{${id}}`));
    // The same key re-attaches to the answered inquiry.
    const again = (
      await ask(a, {
        question: 'Drop the table?',
        kind: 'approval',
        audience: { team: 'owners' },
        idempotencyKey: 'drop-1',
      })
    ).structuredContent as InquiryResult;
    expect(again).toMatchObject({ inquiryId: id, status: 'answered', answer: 'approve' });
  });
});
