import type { Inquiry } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  clickPayload,
  type FakeMessage,
  type FakeSlack,
  signedBody,
  signedRequest,
  startFakeSlack,
  submitPayload,
} from '../src/testing/fake-slack.js';
import { body, startTeamCluster, startTestNode, type TeamCluster, type TestNode } from './harness.js';
import { interact, postedMessage, slackEnv } from './slack-helpers.js';

/**
 * What `POST /slack/interactions` refuses, on two real nodes sharing one redis-server: a request not
 * from Slack (signature, timestamp, a replay), a member who is not asked, and payloads that are not
 * Slack's. Each time nothing is answered and the status says why.
 */
const DIRECTORY = {
  users: {
    ann: { name: 'Ann', slack: 'U0ANN', notify: ['slack'] },
    bob: { name: 'Bob', slack: 'U0BOB' },
    eve: { name: 'Eve', slack: 'U0EVE' },
  },
  teams: { duo: { members: ['ann', 'bob'], askers: ['robot'] } },
};

let fake: FakeSlack;
let team: TeamCluster;
let a: TestNode;
let b: TestNode;
let message: FakeMessage & { inquiryId: string };
let call: Promise<unknown>;

beforeAll(async () => {
  fake = await startFakeSlack();
  team = await startTeamCluster(DIRECTORY, slackEnv(fake));
  ({ a, b } = team);
  const agent = await a.mcp('robot');
  // A quorum approval: every vote counts, so "nothing answered" is "no vote was added".
  call = agent
    .callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'Wipe the staging bucket?',
          kind: 'approval',
          action: { server: 's3', tool: 'wipe', arguments: { bucket: 'staging' } },
          audience: { team: 'duo' },
          quorum: 2,
        },
      },
      undefined,
      { timeout: 60_000 },
    )
    .catch(() => undefined);
  message = await postedMessage(fake, 'Wipe the staging bucket');
}, 60_000);

afterAll(async () => {
  await team?.close();
  await fake?.close();
  await call;
});

/** The inquiry as Ann's device reads it. */
async function inquiry(): Promise<Inquiry> {
  return body<Inquiry>(
    await a.rest(`/api/inquiries/${message.inquiryId}`, { token: await a.token('ann', 'device') }),
  );
}

async function refused(response: Response, status: number, words: RegExp): Promise<void> {
  expect(response.status).toBe(status);
  const error = (await response.json()) as { error: { code: string; message: string } };
  expect(error.error.message).toMatch(words);
}

describe('requests not from Slack: 401, nothing happens', () => {
  it('a wrong signature, a changed body, a stale or future timestamp, no headers', async () => {
    const calls = fake.calls.length;
    const click = clickPayload(message, 'U0ANN', 'hitl.approve');
    await refused(
      await interact(a, click, { secret: 'some-other-signing-secret' }),
      401,
      /signature mismatch/,
    );
    const signed = signedRequest(click);
    const changed = signed.body.replace('U0ANN', 'U0BOB');
    await refused(
      await fetch(`${a.url}/slack/interactions`, { ...signed, body: changed }),
      401,
      /signature mismatch/,
    );
    const now = Math.floor(Date.now() / 1000);
    await refused(await interact(b, click, { timestamp: now - 6 * 60 }), 401, /stale/);
    await refused(await interact(b, click, { timestamp: now + 6 * 60 }), 401, /ahead/);
    await refused(
      await fetch(`${a.url}/slack/interactions`, {
        method: 'POST',
        body: signed.body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      401,
      /required/,
    );
    expect((await inquiry()).votes ?? []).toEqual([]);
    expect(fake.calls.length).toBe(calls);
  });

  it('a replayed request, on the same node or another: 401, its vote counted once', async () => {
    const request = signedRequest(clickPayload(message, 'U0ANN', 'hitl.approve'));
    const first = await fetch(`${a.url}/slack/interactions`, request);
    expect(first.headers.get('hitl-slack-outcome')).toBe('counted');
    for (const node of [a, b]) {
      await refused(await fetch(`${node.url}/slack/interactions`, request), 401, /replay/);
    }
    expect((await inquiry()).votes?.map((v) => v.userId)).toEqual(['ann']);
  });
});

describe('people Slack knows but we do not ask: told so, alone; the message is left as it is', () => {
  it('a member outside the audience, and one not in the directory', async () => {
    const updates = fake.callsOf('chat.update').length;
    for (const [member, outcome] of [
      ['U0EVE', 'not_in_audience'],
      ['U0NOBODY', 'unknown_member'],
    ] as const) {
      const before = fake.callsOf('chat.postEphemeral').length;
      const response = await interact(b, clickPayload(message, member, 'hitl.reject'));
      expect(response.status).toBe(200);
      expect(response.headers.get('hitl-slack-outcome')).toBe(outcome);
      const told = await vi.waitFor(() => {
        const ephemeral = fake.callsOf('chat.postEphemeral')[before];
        if (!ephemeral) throw new Error('no ephemeral yet');
        return ephemeral;
      });
      expect(told.args).toMatchObject({ user: member, channel: message.channel });
    }
    expect(fake.callsOf('views.open')).toHaveLength(0);
    expect(fake.callsOf('chat.update')).toHaveLength(updates);
    expect((await inquiry()).status).toBe('pending');
  });
});

describe('payloads that are not Slack’s: 400 naming the field, 413 when huge', () => {
  const post = (node: TestNode, raw: string, contentType = 'application/x-www-form-urlencoded') => {
    const request = signedBody(raw);
    return fetch(`${node.url}/slack/interactions`, {
      ...request,
      headers: { ...request.headers, 'content-type': contentType },
    });
  };
  const form = (payload: string) => new URLSearchParams({ payload }).toString();

  it('malformed bodies and payloads', async () => {
    await refused(
      await post(a, JSON.stringify({ type: 'block_actions' }), 'application/json'),
      400,
      /content-type/,
    );
    await refused(await post(a, 'nothing=here'), 400, /payload: required/);
    await refused(await post(a, form('{not json')), 400, /payload: not JSON/);
    await refused(
      await post(b, form(JSON.stringify({ type: 'shortcut', user: { id: 'U0ANN' } }))),
      400,
      /type/,
    );
    const noUser = { ...clickPayload(message, 'U0ANN', 'hitl.approve'), user: {} };
    await refused(await post(b, form(JSON.stringify(noUser))), 400, /user\.id/);
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`;
    await refused(
      await post(a, form(JSON.stringify({ type: 'block_actions', deep: JSON.parse(deep) }))),
      400,
      /nested deeper/,
    );
    expect((await inquiry()).votes?.map((v) => v.userId)).toEqual(['ann']);
  });

  it('unknown action ids and values, and modals that are not ours', async () => {
    const click = clickPayload(message, 'U0BOB', 'hitl.approve');
    const unknown = { ...click, actions: [{ ...click.actions[0], action_id: 'hitl.launch' }] };
    await refused(await interact(a, unknown), 400, /actions\.0\.action_id/);
    const foreign = { ...click, actions: [{ ...click.actions[0], value: '../../etc/passwd' }] };
    await refused(await interact(a, foreign), 400, /actions\.0\.action_id/);
    const option = {
      ...click,
      actions: [{ ...click.actions[0], action_id: 'hitl.option.0', value: `${message.inquiryId}:0` }],
    };
    await refused(await interact(b, option), 400, /option does not fit this approval/);
    const view = { callback_id: 'someone.else', private_metadata: '{}', blocks: [] };
    await refused(await interact(b, submitPayload(view, 'U0BOB', {})), 400, /not a modal of this service/);
    expect((await inquiry()).votes?.map((v) => v.userId)).toEqual(['ann']);
  });

  it('a body over the cap is 413, unread', async () => {
    const huge = form(
      JSON.stringify({ ...clickPayload(message, 'U0BOB', 'hitl.approve'), padding: 'x'.repeat(300_000) }),
    );
    const response = await post(a, huge);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    expect((await inquiry()).votes?.map((v) => v.userId)).toEqual(['ann']);
  });

  it('GET is 405; a node without Slack has no such door', async () => {
    const get = await fetch(`${a.url}/slack/interactions`);
    expect(get.status).toBe(405);
    const plain = await startTestNode('memory');
    try {
      const response = await fetch(
        `${plain.url}/slack/interactions`,
        signedRequest(clickPayload(message, 'U0ANN', 'hitl.approve')),
      );
      expect(response.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
