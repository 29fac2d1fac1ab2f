import { writeFile } from 'node:fs/promises';
import type { DeviceInquiry, InquiryResolvedEvent, InquiryResult } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startTeamCluster, type TeamCluster, type TestNode } from './harness.js';

/**
 * Audiences across two real nodes sharing one redis-server: a team's members each get the question on
 * their own devices (whichever node they are connected to), any one answers, everyone sees who did,
 * and nobody outside the audience sees it at all.
 */
const DIRECTORY = {
  users: { ann: { name: 'Ann' }, bob: { name: 'Bob' }, cid: { name: 'Cid' }, dan: {}, eve: {} },
  teams: {
    ops: { members: ['ann', 'bob', 'cid'], askers: ['ann', 'robot'] },
    night: { members: ['dan'] },
  },
};

interface ItemsBody {
  items: { inquiryId: string; status: string; resolvedBy?: { userId?: string } }[];
}

let team: TeamCluster;
let file: string;
let a: TestNode;
let b: TestNode;

beforeAll(async () => {
  team = await startTeamCluster(DIRECTORY);
  ({ a, b, file } = team);
}, 60_000);

afterAll(async () => {
  await team?.close();
});

/** The text of a refused call, whether the SDK threw a JSON-RPC error or returned an isError result. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    const result = (await call) as { isError?: boolean; content?: { text?: string }[] };
    expect(result.isError).toBe(true);
    return result.content?.map((c) => c.text ?? '').join(' ') ?? '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('audiences', () => {
  it('a team of three on two nodes: one answers, all three see who; an outsider sees nothing', async () => {
    const ann = await a.device('ann', 'ann laptop');
    const bob = await b.device('bob', 'bob phone');
    const cid = await b.device('cid', 'cid tablet');
    const eve = await a.device('eve', 'eve laptop');
    await Promise.all([ann.synced, bob.synced, cid.synced, eve.synced]);
    const agent = await a.mcp('robot');
    const call = agent.callTool(
      { name: 'send_inquiry', arguments: { question: 'Restart the database?', audience: { team: 'ops' } } },
      undefined,
      { timeout: 30_000 },
    );
    const shown = await Promise.all([ann.nextNew(), bob.nextNew(), cid.nextNew()]);
    const { inquiryId } = shown[0] as DeviceInquiry;
    expect(shown.map((s) => s.inquiryId)).toEqual([inquiryId, inquiryId, inquiryId]);

    const eveToken = await a.token('eve', 'device');
    expect((await b.rest(`/api/inquiries/${inquiryId}`, { token: eveToken })).status).toBe(404);
    const eveAnswer = await eve.emit<{ ok: boolean; error?: { code: string } }>('inquiry:answer', {
      inquiryId,
      response: 'yes',
    });
    expect(eveAnswer).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // The asker's own user is not in the team: its devices are not asked either.
    const robotToken = await a.token('robot', 'device');
    expect((await a.rest(`/api/inquiries/${inquiryId}`, { token: robotToken })).status).toBe(404);

    expect(await bob.emit('inquiry:answer', { inquiryId, response: 'yes, at noon' })).toMatchObject({
      ok: true,
      status: 'answered',
    });
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({
      inquiryId,
      status: 'answered',
      answer: 'yes, at noon',
      resolvedBy: { kind: 'human', userId: 'bob', deviceName: 'bob phone' },
    });
    const resolved: InquiryResolvedEvent[] = await Promise.all([
      ann.nextResolved(),
      bob.nextResolved(),
      cid.nextResolved(),
    ]);
    for (const event of resolved) {
      expect(event).toMatchObject({ inquiryId, status: 'answered', resolvedBy: { userId: 'bob' } });
    }
    // A later answer from another member, on the other node, is told who won.
    const late = await a.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: await a.token('ann', 'device'),
      body: JSON.stringify({ response: 'no' }),
    });
    expect(late.status).toBe(409);
    expect(await body(late)).toMatchObject({ status: 'answered', resolvedBy: { userId: 'bob' } });

    const cidToken = await b.token('cid', 'device');
    const history = await body<ItemsBody>(await a.rest('/api/inquiries?status=all', { token: cidToken }));
    expect(history.items.map((i) => i.inquiryId)).toContain(inquiryId);
    expect((await a.rest(`/api/inquiries/${inquiryId}`, { token: cidToken })).status).toBe(200);
    const eveHistory = await body<ItemsBody>(await b.rest('/api/inquiries?status=all', { token: eveToken }));
    expect(eveHistory.items.map((i) => i.inquiryId)).not.toContain(inquiryId);
    expect(eve.received.filter((r) => r.event !== 'inquiry:sync')).toEqual([]);

    // The asker still owns the call: get_inquiry finds it for robot, not for a member's agent.
    const again = await agent.callTool({ name: 'get_inquiry', arguments: { inquiryId } });
    expect(again.structuredContent).toMatchObject({ status: 'answered', resolvedBy: { userId: 'bob' } });
    const bobAgent = await b.mcp('bob');
    const other = await bobAgent.callTool({ name: 'get_inquiry', arguments: { inquiryId } });
    expect(other.structuredContent).toMatchObject({ status: 'not_found' });
  }, 60_000);

  it('{users}: a member who connects later gets it in the sync and answers over REST on the other node', async () => {
    const ann = await a.device('ann', 'ann desk');
    await ann.synced;
    const agent = await b.mcp('robot');
    const call = agent.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'Which region?', audience: { users: ['ann', 'cid', 'ann'] } },
      },
      undefined,
      { timeout: 30_000 },
    );
    const { inquiryId } = await ann.nextNew();
    const cid = await b.device('cid', 'cid late');
    const synced = await cid.synced;
    expect(synced.inquiries.map((i) => i.inquiryId)).toContain(inquiryId);
    const answer = await b.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: await b.token('cid', 'device'),
      body: JSON.stringify({ response: 'eu-west' }),
    });
    expect(answer.status).toBe(200);
    expect((await call).structuredContent).toMatchObject({
      answer: 'eu-west',
      resolvedBy: { userId: 'cid' },
    });
    expect(await ann.nextResolved()).toMatchObject({ inquiryId, resolvedBy: { userId: 'cid' } });
  }, 60_000);

  it('refuses an audience the agent may not ask, naming audience', async () => {
    const dan = await a.mcp('dan');
    const ask = (audience: unknown) =>
      refusal(dan.callTool({ name: 'send_inquiry', arguments: { question: 'Allowed?', audience } }));
    expect(await ask({ team: 'ops' })).toMatch(/audience.*no team "ops" that user "dan" may ask/);
    expect(await ask({ team: 'nope' })).toMatch(/audience/);
    expect(await ask({ users: ['ann', 'nobody'] })).toMatch(/audience.*"nobody"/);
    expect(await ask({ team: 'night', users: ['ann'] })).toMatch(/audience/);
    // A member may ask its own team (askers default to the members).
    const ok = dan.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'Night shift ok?', audience: { team: 'night' }, timeoutMs: 1000 },
      },
      undefined,
      { timeout: 30_000 },
    );
    expect((await ok).structuredContent).toMatchObject({ status: 'timed_out' });
  }, 60_000);

  it('a directory reload while calls are held drops none; the new teams apply to the next question', async () => {
    const bob = await b.device('bob', 'bob reload');
    await bob.synced;
    const agent = await a.mcp('robot');
    const calls = Array.from({ length: 5 }, (_, i) =>
      agent.callTool(
        { name: 'send_inquiry', arguments: { question: `Held ${i}`, audience: { team: 'ops' } } },
        undefined,
        { timeout: 30_000 },
      ),
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await bob.nextNew()).inquiryId);
    await writeFile(
      file,
      JSON.stringify({
        ...DIRECTORY,
        teams: { ...DIRECTORY.teams, ops: { members: ['ann', 'bob', 'cid'] } },
      }),
    );
    expect(await a.node.directory.reload()).toBe(true);
    expect(await b.node.directory.reload()).toBe(true);
    for (const inquiryId of ids) {
      expect(await bob.emit('inquiry:answer', { inquiryId, response: 'ok' })).toMatchObject({ ok: true });
    }
    const results = await Promise.all(calls);
    expect(results.map((r) => (r.structuredContent as InquiryResult).status)).toEqual(
      Array(5).fill('answered'),
    );
    // robot is no longer an asker of ops.
    expect(
      await refusal(
        agent.callTool({ name: 'send_inquiry', arguments: { question: 'More?', audience: { team: 'ops' } } }),
      ),
    ).toMatch(/audience/);
    await writeFile(file, JSON.stringify(DIRECTORY));
    await a.node.directory.reload();
    await b.node.directory.reload();
  }, 60_000);
});
