import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeChatModel, startFakeChatModel } from '@hitl/decisions/testing';
import type { DeviceAck, DeviceInquiry, InquiryResult } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, MACHINE_WORDS, refuse, SHORT_TIERS } from './decision-helpers.js';
import { startTestNode, type TestNode } from './harness.js';

const sizes = {
  question: 'Which shoe size?',
  options: ['41', '42', '43'],
  context: 'Running shoes for the marathon in May.',
  fallback: { onRefusal: 'agent', onTimeout: 'agent' },
};
const approval = {
  question: 'May I cancel the subscription?',
  kind: 'approval',
  action: { server: 'billing', tool: 'cancel_subscription', arguments: { plan: 'pro' } },
  fallback: { onRefusal: 'agent' },
};

describe('the agent strategy against an OpenAI-compatible endpoint', () => {
  let llm: FakeChatModel;
  let t: TestNode;
  beforeAll(async () => {
    llm = await startFakeChatModel();
    const dir = await mkdtemp(join(tmpdir(), 'hitl-policy-'));
    const policyFile = join(dir, 'policy.json');
    await writeFile(policyFile, JSON.stringify({ users: { sally: { suggest: true } } }));
    t = await startTestNode('memory', {
      ...SHORT_TIERS,
      HITL_LLM_URL: llm.url,
      HITL_LLM_MODEL: 'test-model',
      HITL_LLM_API_KEY: 'sk-test',
      HITL_POLICY_FILE: policyFile,
    });
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('a good reply decides, labelled as a machine with its rationale', async () => {
    llm.reply({
      content: { decision: 'answer', answer: '42', rationale: 'Their usual size is 42.', confidence: 0.8 },
    });
    const r = await refuse(t, sizes);
    expect(r.structured).toMatchObject({
      status: 'refused',
      answer: '42',
      resolvedBy: {
        kind: 'decision-agent',
        strategy: 'agent',
        trigger: 'refusal',
        rationale: 'Their usual size is 42.',
      },
    });
    expect(r.text).toMatch(MACHINE_WORDS);
    expect(r.text).toMatch(/reasoning: Their usual size is 42\./);
    const sent = llm.requests.at(-1);
    expect(sent).toMatchObject({ model: 'test-model', authorization: 'Bearer sk-test' });
    expect(sent?.messages?.[0]?.content).toMatch(/Continue on your own understanding/);
  });

  it.each([
    ['a malformed reply', { content: 'Size 42, probably.' }, /not JSON/],
    ['an HTTP 500', { status: 500 }, /HTTP 500/],
  ])('%s fails closed', async (_name, reply, reason) => {
    llm.reply(reply);
    const r = await refuse(t, sizes);
    expect(r.structured).toMatchObject({ status: 'refused', resolvedBy: { strategy: 'fail_closed' } });
    expect(r.structured.answer).toBeUndefined();
    expect(r.structured.resolvedBy?.rationale).toMatch(reason);
    expect(r.text).toMatch(/No answer was chosen and nothing was approved/);
  });

  it('a reply slower than the budget fails closed before the client tier', async () => {
    llm.reply({
      delayMs: 6000,
      content: { decision: 'answer', answer: '42', rationale: 'late', confidence: 1 },
    });
    const { device, pushed, result } = await ask(t, sizes);
    await device.emit('inquiry:refuse', { inquiryId: pushed.inquiryId });
    const r = await result;
    const end = pushed.createdAt + (r.structured.elapsedMs ?? 0);
    expect(end).toBeLessThan(pushed.deadlines.clientAt);
    expect(r.structured.elapsedMs).toBeGreaterThanOrEqual(2500);
    expect(r.structured.resolvedBy).toMatchObject({ strategy: 'fail_closed' });
    expect(r.structured.resolvedBy?.rationale).toMatch(/did not answer in time/);
  });

  it.each([
    ['a critical action, even at 0.99', true, 0.99],
    ['a confidence below 0.7', false, 0.5],
    ['a confidence given as text', false, 'high'],
  ])('the gate overrides a model approval of %s', async (_name, critical, confidence) => {
    llm.reply({ content: { decision: 'approve', rationale: 'They asked for it last week.', confidence } });
    const r = await refuse(t, { ...approval, critical });
    expect(r.structured).toMatchObject({
      answer: 'reject',
      resolvedBy: { kind: 'decision-agent', strategy: 'fail_closed', trigger: 'refusal' },
    });
    // A critical inquiry never reaches the model: only fail_closed or preset_text apply to it.
    expect(r.structured.resolvedBy?.rationale).toMatch(
      critical ? /critical inquiry/ : /agent would approve, but/,
    );
    expect(r.text).toMatch(/rejected and nothing was approved/);
  });

  it('a confident model approval of a non-critical action passes the gate', async () => {
    llm.reply({ content: { decision: 'approve', rationale: 'Routine and reversible.', confidence: 0.7 } });
    const r = await refuse(t, approval);
    expect(r.structured).toMatchObject({ answer: 'approve', resolvedBy: { strategy: 'agent' } });
    expect(r.text).toMatch(/no person approved it/);
  });

  it('a human answer that lands while the model thinks still wins', async () => {
    llm.reply({
      delayMs: 1500,
      content: { decision: 'answer', answer: '41', rationale: 'guess', confidence: 0.9 },
    });
    const { device: phone, pushed, result } = await ask(t, sizes, 'u-two-devices');
    const laptop = await t.device('u-two-devices', 'laptop');
    await laptop.synced;
    const asked = llm.requests.length;
    const refused = phone.emit<DeviceAck>('inquiry:refuse', { inquiryId: pushed.inquiryId });
    // The model has the question (and thinks for 1.5 s) when the laptop answers.
    await eventually(() => llm.requests.length > asked);
    const answered = await laptop.emit<DeviceAck>('inquiry:answer', {
      inquiryId: pushed.inquiryId,
      response: '43',
    });
    expect(answered).toEqual({ ok: true, status: 'answered' });
    expect((await result).structured).toMatchObject({
      status: 'answered',
      answer: '43',
      resolvedBy: { kind: 'human', deviceName: 'laptop' },
    });
    expect(await refused).toMatchObject({
      ok: false,
      error: { code: 'already_resolved' },
      status: 'answered',
    });
  });

  it('suggests an answer when the policy asks; submitted unchanged it is still a human answer', async () => {
    llm.reply({ content: { decision: 'answer', answer: '42', rationale: 'Usual size.', confidence: 0.6 } });
    const { device, pushed, result } = await ask(
      t,
      { question: 'Which shoe size?', options: ['41', '42', '43'] },
      'sally',
    );
    expect(pushed.suggestedAnswer).toBeUndefined();
    await eventually(() => device.received.some((e) => e.event === 'inquiry:updated'));
    const updated = device.received.find((e) => e.event === 'inquiry:updated')?.payload as DeviceInquiry;
    expect(updated).toMatchObject({ inquiryId: pushed.inquiryId, suggestedAnswer: '42' });
    expect(updated.defaultAnswer).toBeUndefined();
    await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: updated.suggestedAnswer });
    const r = await result;
    expect(r.structured).toMatchObject({
      status: 'answered',
      answer: '42',
      resolvedBy: { kind: 'human' },
    } satisfies Partial<InquiryResult>);
    expect(r.text).toBe('The person answered: 42');
  });
});
