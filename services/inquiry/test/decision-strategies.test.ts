import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceTimesOut, MACHINE_WORDS, refuse, SHORT_TIERS, serviceTimesOut } from './decision-helpers.js';
import { startTestNode, type TestNode } from './harness.js';

const deleteInvoices = {
  question: 'May I delete the 3 unpaid invoices?',
  kind: 'approval',
  action: { server: 'billing', tool: 'delete_invoices', arguments: { ids: [7, 8, 9] } },
};

describe('fallback strategies end to end (real MCP calls, memory store)', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory', { ...SHORT_TIERS, HITL_FORBID_STRATEGIES: 'random' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('without a fallback a question keeps the preset text and no decision agent runs', async () => {
    const r = await refuse(t, { question: 'Gift wrap?' });
    expect(r.structured).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'human', strategy: 'preset_text' },
      answer: "I'm not sure about the details; decide as you see fit.",
    });
    expect(r.text).not.toMatch(MACHINE_WORDS);
  });

  it('fail_closed is the default for an approval nobody answers: rejected, nothing approved', async () => {
    const r = await serviceTimesOut(t, { ...deleteInvoices, confidence: 0.99 });
    expect(r.isError).toBe(false);
    expect(r.structured).toMatchObject({
      status: 'timed_out',
      answer: 'reject',
      resolvedBy: { kind: 'decision-agent', strategy: 'fail_closed', trigger: 'service-timer' },
    });
    expect(r.text).toMatch(MACHINE_WORDS);
    expect(r.text).toMatch(/rejected and nothing was approved: do not run it/);
  });

  it('fail_closed is the default for a critical question the person declines: no answer', async () => {
    const r = await refuse(t, { question: 'Which account do I wire the money from?', critical: true });
    expect(r.ack).toEqual({ ok: true, status: 'refused' });
    expect(r.structured).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'decision-agent', strategy: 'fail_closed', trigger: 'refusal' },
    });
    expect(r.structured.answer).toBeUndefined();
    expect(r.text).toMatch(/No human answered: the person declined to answer/);
    expect(r.text).toMatch(/nothing was approved/);
  });

  it('default_answer: the prefilled answer, labelled as machine-chosen', async () => {
    const r = await refuse(t, {
      question: 'Which size?',
      options: ['S', 'M', 'L'],
      defaultAnswer: 'M',
      fallback: { onRefusal: 'default_answer' },
    });
    expect(r.structured).toMatchObject({
      status: 'refused',
      answer: 'M',
      resolvedBy: { kind: 'decision-agent', strategy: 'default_answer', trigger: 'refusal' },
    });
    expect(r.text).toMatch(/Machine-chosen answer \(no person confirmed it\): M/);
  });

  it('agent without a model: the rule-based decider on a device timeout', async () => {
    const r = await deviceTimesOut(t, {
      question: 'Which colour?',
      options: ['red', 'blue', 'green'],
      context: 'The last three orders were all blue.',
      fallback: { onTimeout: 'agent' },
    });
    expect(r.structured).toMatchObject({
      status: 'timed_out',
      answer: 'blue',
      resolvedBy: { kind: 'decision-agent', strategy: 'agent', trigger: 'device-timer' },
    });
    expect(r.structured.resolvedBy?.rationale).toMatch(/rule-based decider: the context names "blue"/);
  });

  it('approve (YOLO): a confident, non-critical approval goes ahead, said to be no person', async () => {
    const r = await refuse(t, { ...deleteInvoices, confidence: 0.7, fallback: { onRefusal: 'approve' } });
    expect(r.structured).toMatchObject({
      status: 'refused',
      answer: 'approve',
      resolvedBy: { kind: 'decision-agent', strategy: 'approve', trigger: 'refusal' },
    });
    expect(r.text).toMatch(/no person approved it/);
  });

  it.each([
    ['a confidence below 0.7', { confidence: 0.69 }, /confidence 0.69 is below 0.7/],
    ['no confidence', {}, /no confidence was given/],
    ['a critical action', { confidence: 1, critical: true }, /critical/],
  ])('the gate overrides approve with %s: fail_closed, rejected', async (_name, extra, reason) => {
    const r = await refuse(t, { ...deleteInvoices, ...extra, fallback: { onRefusal: 'approve' } });
    expect(r.structured).toMatchObject({
      answer: 'reject',
      resolvedBy: { kind: 'decision-agent', strategy: 'fail_closed' },
    });
    expect(r.structured.resolvedBy?.rationale).toMatch(reason);
    expect(r.text).toMatch(/nothing was approved/);
  });

  it('a strategy the server forbids fails closed and says so', async () => {
    const r = await refuse(t, {
      question: 'Colour?',
      options: ['red', 'blue'],
      fallback: { onRefusal: 'random' },
    });
    expect(r.structured).toMatchObject({ resolvedBy: { strategy: 'fail_closed' } });
    expect(r.structured.resolvedBy?.rationale).toMatch(/random is forbidden for this server/);
  });
});

describe('random end to end', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory', SHORT_TIERS);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('picks one of the options on a service timeout, seeded by the inquiry id, and says so', async () => {
    const r = await serviceTimesOut(t, {
      question: 'Which colour?',
      options: ['red', 'blue', 'green'],
      fallback: { onTimeout: 'random' },
    });
    expect(r.structured).toMatchObject({
      status: 'timed_out',
      resolvedBy: { kind: 'decision-agent', strategy: 'random', trigger: 'service-timer' },
    });
    expect(['red', 'blue', 'green']).toContain(r.structured.answer);
    expect(r.structured.resolvedBy?.rationale).toContain(`seed "${r.structured.inquiryId}"`);
    expect(r.text).toMatch(MACHINE_WORDS);
  });
});
