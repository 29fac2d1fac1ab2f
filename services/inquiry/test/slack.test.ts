import type { InquiryResult } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clickPayload, type FakeSlack, startFakeSlack, submitPayload } from '../src/testing/fake-slack.js';
import { body, startTeamCluster, type TeamCluster, type TestNode } from './harness.js';
import {
  hasControls,
  interact,
  postedMessage,
  slackDeliveries,
  slackEnv,
  slackSettled,
} from './slack-helpers.js';

/**
 * Slack as a device, end to end: two real nodes on one real redis-server, a local fake of Slack's Web
 * API (a real HTTP server), interaction payloads built and signed as Slack sends them, the official
 * MCP client holding the agent's call and real socket.io devices.
 */
const DIRECTORY = {
  users: {
    ann: { name: 'Ann', slack: 'U0ANN', notify: ['slack'] },
    bob: { name: 'Bob', slack: 'U0BOB', notify: ['slack'] },
    cid: { name: 'Cid', slack: 'U0CID' },
    dan: { name: 'Dan', slack: 'U0DAN' },
    eve: { name: 'Eve', slack: 'U0EVE', notify: ['slack'] },
  },
  teams: {
    pair: { members: ['ann', 'bob'], askers: ['robot'] },
    solo: { members: ['eve'], askers: ['robot'] },
    owners: { members: ['ann', 'bob', 'cid'], askers: ['robot'], slackChannel: 'C0OWNERS' },
    oncall: {
      members: ['cid'],
      askers: ['robot'],
      slackChannel: 'C0ONCALL',
      escalateTo: { team: 'leads' },
      escalateAfterMs: 1500,
    },
    leads: { members: ['dan'], slackChannel: 'C0LEADS' },
  },
};

let fake: FakeSlack;
let team: TeamCluster;
let a: TestNode;
let b: TestNode;

beforeAll(async () => {
  fake = await startFakeSlack();
  team = await startTeamCluster(DIRECTORY, { ...slackEnv(fake), HITL_HEARTBEAT_MS: '300' });
  ({ a, b } = team);
}, 60_000);

afterAll(async () => {
  await team?.close();
  await fake?.close();
});

/** `send_inquiry` from the robot's agent on `node`; the call is held until it ends. */
async function ask(node: TestNode, args: Record<string, unknown>) {
  const agent = await node.mcp('robot');
  return agent
    .callTool({ name: 'send_inquiry', arguments: args }, undefined, { timeout: 30_000 })
    .then((result) => result.structuredContent as InquiryResult);
}

describe('Slack: a question in a DM', () => {
  it('a click on node A answers the call held on node B, as the person from "Slack"; the message is updated once', async () => {
    const call = ask(b, {
      question: 'Ship <v2> & tag it?',
      options: ['yes', 'no'],
      audience: { users: ['ann'] },
    });
    const message = await postedMessage(fake, 'Ship');
    expect(message.channel).toBe('D0ANN');
    // Slack's control characters are escaped in what people read.
    expect(JSON.stringify(message.blocks)).toContain('Ship &lt;v2&gt; &amp; tag it?');

    const response = await interact(a, clickPayload(message, 'U0ANN', 'hitl.option.0'));
    expect(response.status).toBe(200);
    expect(response.headers.get('hitl-slack-outcome')).toBe('answered');
    expect(await call).toMatchObject({
      status: 'answered',
      answer: 'yes',
      resolvedBy: { kind: 'human', userId: 'ann', deviceName: 'Slack', deviceId: 'slack:U0ANN' },
    });

    const items = await slackDeliveries(b, message.inquiryId, (ds) =>
      ds.some((d) => d.event === 'inquiry.resolved' && d.status === 'delivered'),
    );
    await slackSettled(a, b);
    expect(items.map((d) => `${d.event} ${d.status}`).sort()).toEqual([
      'inquiry.created delivered',
      'inquiry.resolved delivered',
    ]);
    expect(message.updates).toHaveLength(1);
    const [update] = message.updates;
    expect(hasControls(update?.blocks ?? [])).toBe(false);
    expect(JSON.stringify(update?.blocks)).toMatch(/Answered\* by \*Ann\* on Slack/);
  });

  it('a device answers first: the Slack message says so, once, and a later click is told who answered', async () => {
    const ann = await a.device('ann', 'ann phone');
    await ann.synced;
    const call = ask(b, { question: 'Restart the cache?', audience: { users: ['ann'] } });
    const message = await postedMessage(fake, 'Restart the cache');
    const shown = await ann.nextNew();
    expect(
      await ann.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'not now' }),
    ).toMatchObject({
      ok: true,
    });
    expect((await call).resolvedBy).toMatchObject({ userId: 'ann', deviceName: 'ann phone' });
    await slackDeliveries(a, message.inquiryId, (ds) =>
      ds.some((d) => d.event === 'inquiry.resolved' && d.status === 'delivered'),
    );
    await slackSettled(a, b);
    expect(message.updates).toHaveLength(1);
    expect(JSON.stringify(message.updates[0]?.blocks)).toMatch(/Answered\* by \*Ann\* on ann phone/);
    expect(hasControls(message.updates[0]?.blocks ?? [])).toBe(false);

    // The person still has the old message open somewhere and clicks: told who answered, nothing else.
    const before = fake.callsOf('chat.postEphemeral').length;
    const late = await interact(b, clickPayload(message, 'U0ANN', 'hitl.answer'));
    expect(late.headers.get('hitl-slack-outcome')).toBe('ended');
    const told = await vi.waitFor(() => {
      const call = fake.callsOf('chat.postEphemeral')[before];
      if (!call) throw new Error('no ephemeral yet');
      return call;
    });
    expect(told.args).toMatchObject({ channel: 'D0ANN', user: 'U0ANN' });
    expect(String(told.args.text)).toMatch(/already ended.*Ann\* on ann phone/);
    expect(fake.callsOf('views.open')).toHaveLength(0);
    expect(message.updates).toHaveLength(1);
  });

  it('the answer link in a DM: opening it (as an unfurler would) changes nothing; its form answers as that person', async () => {
    const call = ask(a, { question: 'Which region?', options: ['eu', 'us'], audience: { users: ['bob'] } });
    const message = await postedMessage(fake, 'Which region');
    const url = /<(http[^|>]+)\|open the answer page>/.exec(JSON.stringify(message.blocks))?.[1];
    expect(url).toMatch(/\/a\/[\w-]+\.[\w-]+\.[\w-]+$/);
    for (let i = 0; i < 2; i++) expect((await fetch(url as string)).status).toBe(200);
    const token = await a.token('bob', 'device');
    expect(
      (await body<{ status: string }>(await a.rest(`/api/inquiries/${message.inquiryId}`, { token }))).status,
    ).toBe('pending');
    const posted = await fetch(url as string, {
      method: 'POST',
      body: new URLSearchParams([['response', 'eu']]),
    });
    expect(posted.status).toBe(200);
    expect(await call).toMatchObject({
      answer: 'eu',
      resolvedBy: { userId: 'bob', deviceName: 'slack link' },
    });
    await vi.waitFor(() => expect(message.updates).toHaveLength(1));
  });

  it('a 429 is retried after its Retry-After, off the MCP path: the call is answered before the post lands', async () => {
    const ann = await a.device('ann', 'ann laptop');
    await ann.synced;
    fake.rateLimit('chat.postMessage', 1);
    const call = ask(a, { question: 'Rotate the keys now?', audience: { users: ['ann'] } });
    const shown = await ann.nextNew();
    await vi.waitFor(() => {
      if (!fake.calls.some((c) => c.method === 'chat.postMessage' && c.status === 429))
        throw new Error('no 429 yet');
    });
    await ann.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'yes' });
    expect((await call).status).toBe('answered');
    // The agent has its answer while the post still waits for Slack's Retry-After.
    expect([...fake.messages.values()].some((m) => m.text.includes('Rotate the keys'))).toBe(false);

    const message = await postedMessage(fake, 'Rotate the keys');
    await slackDeliveries(a, shown.inquiryId, (ds) =>
      ds.some((d) => d.event === 'inquiry.resolved' && d.status === 'delivered'),
    );
    await slackSettled(a, b);
    const items = await slackDeliveries(a, shown.inquiryId, () => true);
    const created = items.find((d) => d.event === 'inquiry.created');
    expect(created?.status).toBe('delivered');
    // conversations.open, then the post refused with 429, then the post again.
    expect(created?.attempts.map((t) => t.status)).toEqual([200, 429, 200]);
    // It raced the answer: updated once to say so (by the post's own check, not again at the end).
    expect(message.updates).toHaveLength(1);
    expect(items.filter((d) => d.event === 'inquiry.resolved')).toHaveLength(1);
    expect(hasControls(message.updates[0]?.blocks ?? [])).toBe(false);
  });

  it("a member's DM is opened once per node: the next question to them is one Web API call", async () => {
    const opensOf = () => fake.callsOf('conversations.open').filter((c) => c.args.users === 'U0EVE');
    for (const [n, question] of ['Renew the cert?', 'Renew the other cert?'].entries()) {
      const call = ask(a, { question, options: ['yes', 'no'], audience: { users: ['eve'] } });
      const message = await postedMessage(fake, question);
      expect(message.channel).toBe('D0EVE');
      const response = await interact(b, clickPayload(message, 'U0EVE', 'hitl.option.0'));
      expect(response.headers.get('hitl-slack-outcome')).toBe('answered');
      expect(await call).toMatchObject({ status: 'answered', answer: 'yes' });
      expect(opensOf(), `after question ${n + 1}`).toHaveLength(1);
    }
    await slackSettled(a, b);
  });
});

describe('Slack: approvals', () => {
  it('reject opens a modal for the reason; its submission rejects as that person', async () => {
    const call = ask(a, {
      question: 'Drop the orders table?',
      kind: 'approval',
      action: { server: 'db', tool: 'drop_table', arguments: { table: 'orders' } },
      context: { why: 'the proxy policy gates drop_table', confidence: 0.4 },
      audience: { users: ['bob'] },
    });
    const message = await postedMessage(fake, 'Drop the orders table');
    expect(message.channel).toBe('D0BOB');
    const shown = JSON.stringify(message.blocks);
    expect(shown).toContain('drop_table');
    expect(shown).toContain('the proxy policy gates drop_table');
    expect(shown).toContain('40 %');

    const opened = fake.callsOf('views.open').length;
    const click = await interact(b, clickPayload(message, 'U0BOB', 'hitl.reject'));
    expect(click.headers.get('hitl-slack-outcome')).toBe('modal_opened');
    const view = fake.callsOf('views.open')[opened]?.args.view as Record<string, unknown>;
    expect(view).toMatchObject({ type: 'modal', callback_id: 'hitl.reject' });

    const tooLong = await interact(
      a,
      submitPayload(view, 'U0BOB', {
        'hitl.reason': { 'hitl.reason': { type: 'plain_text_input', value: 'x'.repeat(1001) } },
      }),
    );
    expect(await tooLong.json()).toEqual({
      response_action: 'errors',
      errors: { 'hitl.reason': 'at most 1000 characters' },
    });

    const submitted = await interact(
      a,
      submitPayload(view, 'U0BOB', {
        'hitl.reason': { 'hitl.reason': { type: 'plain_text_input', value: 'the table is still read' } },
      }),
    );
    expect(submitted.status).toBe(200);
    expect(submitted.headers.get('hitl-slack-outcome')).toBe('answered');
    expect(await submitted.text()).toBe('');
    expect(await call).toMatchObject({
      status: 'answered',
      answer: 'reject',
      resolvedBy: { userId: 'bob', deviceName: 'Slack' },
    });
    await vi.waitFor(() => expect(message.updates).toHaveLength(1));
    expect(JSON.stringify(message.updates[0]?.blocks)).toMatch(/Rejected\* by \*Bob\* on Slack/);
  });

  it('a quorum in the team channel: one message, updated after each vote; a second vote and an outsider are refused', async () => {
    const call = ask(b, {
      question: 'Deploy to production?',
      kind: 'approval',
      action: { server: 'ci', tool: 'deploy', arguments: { env: 'prod' } },
      audience: { team: 'owners' },
      quorum: 2,
    });
    const message = await postedMessage(fake, 'Deploy to production');
    expect(message.channel).toBe('C0OWNERS');

    const first = await interact(a, clickPayload(message, 'U0ANN', 'hitl.approve'));
    expect(first.headers.get('hitl-slack-outcome')).toBe('counted');
    await vi.waitFor(() => expect(message.updates).toHaveLength(1));
    expect(JSON.stringify(message.updates[0]?.blocks)).toContain(
      'Approvals:* 1 of 2 (one reject vetoes): Ann approved',
    );
    expect(hasControls(message.updates[0]?.blocks ?? [])).toBe(true);

    const again = await interact(b, clickPayload(message, 'U0ANN', 'hitl.approve'));
    expect(again.headers.get('hitl-slack-outcome')).toBe('already_voted');
    const outsider = await interact(b, clickPayload(message, 'U0EVE', 'hitl.approve'));
    expect(outsider.status).toBe(200);
    expect(outsider.headers.get('hitl-slack-outcome')).toBe('not_in_audience');

    const second = await interact(b, clickPayload(message, 'U0CID', 'hitl.approve'));
    expect(second.headers.get('hitl-slack-outcome')).toBe('answered');
    const result = await call;
    expect(result).toMatchObject({ status: 'answered', answer: 'approve' });
    expect(result.votes?.map((v) => `${v.userId} ${v.deviceName}`)).toEqual(['ann Slack', 'cid Slack']);
    await vi.waitFor(() => expect(message.updates).toHaveLength(2));
    expect(JSON.stringify(message.updates[1]?.blocks)).toMatch(/Approved\* by \*Cid\* on Slack/);
    expect(hasControls(message.updates[1]?.blocks ?? [])).toBe(false);
  });
});

describe('Slack: modals, menus and escalation', () => {
  it('a form opens a modal with one input per field; the submission is the typed answer', async () => {
    const call = ask(a, {
      question: 'Order details',
      audience: { users: ['ann'] },
      questions: [
        { id: 'size', prompt: 'Size?', kind: 'choice', options: ['S', 'M', 'L'], required: true },
        { id: 'qty', prompt: 'How many?', kind: 'number', required: true },
        { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean' },
        { id: 'colors', prompt: 'Colours?', kind: 'multi', options: ['red', 'blue'] },
        { id: 'note', prompt: 'A note', kind: 'text' },
      ],
    });
    const message = await postedMessage(fake, 'Order details');
    const opened = fake.callsOf('views.open').length;
    expect(
      (await interact(b, clickPayload(message, 'U0ANN', 'hitl.answer'))).headers.get('hitl-slack-outcome'),
    ).toBe('modal_opened');
    const view = fake.callsOf('views.open')[opened]?.args.view as {
      blocks: { type: string; element?: { type: string } }[];
    };
    expect(view.blocks.filter((block) => block.type === 'input').map((block) => block.element?.type)).toEqual(
      ['static_select', 'number_input', 'radio_buttons', 'multi_static_select', 'plain_text_input'],
    );
    const missing = await interact(
      a,
      submitPayload(view, 'U0ANN', {
        'f.0': { v: { type: 'static_select', selected_option: { value: '1' } } },
      }),
    );
    expect(await missing.json()).toEqual({ response_action: 'errors', errors: { 'f.1': 'required' } });

    const submitted = await interact(
      a,
      submitPayload(view, 'U0ANN', {
        'f.0': {
          v: {
            type: 'static_select',
            selected_option: { text: { type: 'plain_text', text: 'M' }, value: '1' },
          },
        },
        'f.1': { v: { type: 'number_input', value: '3' } },
        'f.2': { v: { type: 'radio_buttons', selected_option: { value: 'true' } } },
        'f.3': { v: { type: 'multi_static_select', selected_options: [{ value: '1' }] } },
        'f.4': { v: { type: 'plain_text_input', value: null } },
      }),
    );
    expect(submitted.headers.get('hitl-slack-outcome')).toBe('answered');
    expect(await call).toMatchObject({ answer: { size: 'M', qty: 3, gift: true, colors: ['blue'] } });
  });

  it('more than five options are a select menu', async () => {
    const options = ['one', 'two', 'three', 'four', 'five', 'six'];
    const call = ask(b, { question: 'Pick a number word', options, audience: { users: ['bob'] } });
    const message = await postedMessage(fake, 'Pick a number word');
    const menu = message.blocks
      .flatMap((block) => block.elements ?? [])
      .find((e) => e.type === 'static_select');
    expect(menu?.options?.map((o) => o.text.text)).toEqual(options);
    const value = menu?.options?.[5]?.value;
    const response = await interact(a, clickPayload(message, 'U0BOB', 'hitl.select', value));
    expect(response.headers.get('hitl-slack-outcome')).toBe('answered');
    expect(await call).toMatchObject({ answer: 'six', resolvedBy: { userId: 'bob' } });
  });

  it('an escalation updates the message and posts to the next team; its member answers there', async () => {
    const call = ask(a, { question: 'The disk is full: page someone?', audience: { team: 'oncall' } });
    const first = await postedMessage(fake, 'The disk is full', 'C0ONCALL');
    const second = await postedMessage(fake, 'The disk is full', 'C0LEADS');
    await vi.waitFor(() => expect(first.updates).toHaveLength(1));
    expect(JSON.stringify(first.updates[0]?.blocks)).toContain('Escalated:* team *leads* asked too');
    expect(hasControls(first.updates[0]?.blocks ?? [])).toBe(true);

    const response = await interact(b, clickPayload(second, 'U0DAN', 'hitl.answer'));
    expect(response.headers.get('hitl-slack-outcome')).toBe('modal_opened');
    const view = fake.callsOf('views.open').at(-1)?.args.view as Record<string, unknown>;
    await interact(
      a,
      submitPayload(view, 'U0DAN', {
        'hitl.answer': { 'hitl.answer': { type: 'plain_text_input', value: 'paging the DBA' } },
      }),
    );
    expect(await call).toMatchObject({
      answer: 'paging the DBA',
      resolvedBy: { userId: 'dan', deviceName: 'Slack' },
    });
    await vi.waitFor(() => {
      expect(first.updates).toHaveLength(2);
      expect(second.updates).toHaveLength(1);
    });
    for (const ended of [first.updates[1], second.updates[0]]) {
      expect(JSON.stringify(ended?.blocks)).toMatch(/Answered\* by \*Dan\* on Slack/);
    }
  });
});
