import {
  createLocalDecider,
  createRemoteDecider,
  DECIDE_PATH,
  type Decider,
  openAiChatModel,
} from '@hitl/decisions';
import { approval, type FakeChatModel, inquiry, startFakeChatModel } from '@hitl/decisions/testing';
import { sign } from 'hono/jwt';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDecisionServer, startDecisionServer } from '../src/index.js';

const SECRET = 'decision-test-secret-long-enough-for-hs256';
const token = (role: string, secret = SECRET) =>
  sign({ sub: 'hitl-node', role, iss: 'hitl' }, secret, 'HS256');

let llm: FakeChatModel;
let server: RunningDecisionServer;
let remote: Decider;
beforeAll(async () => {
  llm = await startFakeChatModel();
  server = await startDecisionServer({
    port: 0,
    host: '127.0.0.1',
    secret: SECRET,
    logger: pino({ level: 'silent' }),
    decider: createLocalDecider({ model: openAiChatModel({ url: llm.url, model: 'remote-model' }) }),
  });
  remote = createRemoteDecider({ url: server.url, token: await token('ops') });
});
afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const request = {
  inquiry: inquiry({ options: ['S', 'M'] }),
  trigger: 'refusal',
  strategy: 'agent',
  budgetMs: 2000,
};
const post = (body: unknown, auth?: string) =>
  fetch(`${server.url}${DECIDE_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
    body: JSON.stringify(body),
  });

describe('the decision agent as an HTTP service', () => {
  it('is open on /healthz only', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await post(request)).status).toBe(401);
    expect((await post(request, await token('ops', 'another-secret-that-is-long-enough!!'))).status).toBe(
      401,
    );
    const forbidden = await post(request, await token('agent'));
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({
      error: { code: 'forbidden', message: 'an agent token cannot use the decision agent; needs ops' },
    });
  });

  it('refuses a bad request naming the field', async () => {
    const response = await post({ ...request, strategy: 'yolo' }, await token('ops'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^strategy:/);
  });

  it('refuses JSON nested deeper than 64 levels as a 400 naming the field', async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const raw = JSON.stringify({ ...request, inquiry: { ...request.inquiry, context: '@@' } });
    const response = await fetch(`${server.url}${DECIDE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token('ops')}` },
      body: raw.replace('"@@"', deep),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^inquiry\.context.* is nested deeper than 64 levels/,
    );
  });

  it('decides through the remote client', async () => {
    llm.reply({ content: { decision: 'answer', answer: 'M', rationale: 'usual size', confidence: 0.9 } });
    expect(await remote.decide(request as Parameters<Decider['decide']>[0])).toMatchObject({
      strategy: 'agent',
      answer: 'M',
      model: 'remote-model',
    });
  });

  it('the remote agent fails closed on its own when its model is slow, inside the budget', async () => {
    llm.reply({ delayMs: 3000, content: { decision: 'answer', answer: 'M', rationale: 'late' } });
    // The model answers 'M' after 3 s: only the 600 ms budget can make this fail closed.
    const d = await remote.decide({ ...(request as Parameters<Decider['decide']>[0]), budgetMs: 600 });
    expect(d).toMatchObject({ strategy: 'fail_closed', model: 'remote-model' });
  });

  it('fails closed when the agent is unreachable or refuses the token', async () => {
    const down = createRemoteDecider({ url: 'http://127.0.0.1:9', token: 'x' });
    const d = await down.decide({ ...(request as Parameters<Decider['decide']>[0]), inquiry: approval() });
    expect(d).toMatchObject({ strategy: 'fail_closed', requested: 'agent', answer: 'reject' });
    expect(d.error).toMatch(/unreachable/);
    const wrong = createRemoteDecider({ url: server.url, token: await token('device') });
    expect((await wrong.decide(request as Parameters<Decider['decide']>[0])).error).toBe(
      'the decision agent answered HTTP 403',
    );
  });
});
