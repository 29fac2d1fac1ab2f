import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalDecider, type Decider, openAiChatModel } from '../src/index.js';
import { approval, inquiry } from '../src/testing/fixtures.js';
import { type FakeChatModel, startFakeChatModel } from '../src/testing/index.js';

let llm: FakeChatModel;
let decider: Decider;
beforeAll(async () => {
  llm = await startFakeChatModel();
  decider = createLocalDecider({
    model: openAiChatModel({ url: llm.url, model: 'test-model', apiKey: 'sk-test' }),
  });
});
afterAll(async () => {
  await llm.close();
});

const sizes = inquiry({ options: ['S', 'M', 'L'], context: 'cart: running shoes' });
const agent = (i = sizes, trigger: 'refusal' | 'service-timer' = 'service-timer', budgetMs = 2000) =>
  decider.decide({ inquiry: i, trigger, strategy: 'agent', budgetMs });

describe('agent with a model', () => {
  it('uses a good reply, and sends the decision prompt with the inquiry as data', async () => {
    llm.reply({
      content: { decision: 'answer', answer: 'M', rationale: 'The cart suggests M.', confidence: 0.8 },
    });
    const d = await agent(sizes, 'refusal');
    expect(d).toMatchObject({ strategy: 'agent', answer: 'M', confidence: 0.8, model: 'test-model' });
    expect(d.rationale).toBe('The cart suggests M.');
    const sent = llm.requests.at(-1);
    expect(sent?.model).toBe('test-model');
    expect(sent?.authorization).toBe('Bearer sk-test');
    expect(sent?.messages?.[0]?.content).toMatch(/declined to answer\. Continue on your own understanding/);
    expect(JSON.parse(sent?.messages?.[1]?.content ?? '{}')).toMatchObject({
      question: 'Which size?',
      options: ['S', 'M', 'L'],
    });
  });

  it('on a timeout the prompt asks whether the context is enough', async () => {
    llm.reply({ content: { decision: 'ask_again', rationale: 'Not enough context.', confidence: 0.2 } });
    const d = await agent();
    expect(d.answer).toBeUndefined();
    expect(d.rationale).toMatch(/new inquiry is needed/);
    expect(llm.requests.at(-1)?.messages?.[0]?.content).toMatch(/Judge whether the context is enough/);
  });

  it('accepts a reply wrapped in a ```json fence', async () => {
    llm.reply({
      content: '```json\n{"decision":"answer","answer":"L","rationale":"tall","confidence":0.9}\n```',
    });
    expect((await agent()).answer).toBe('L');
  });

  it.each([
    ['not JSON', { content: 'I think M' }, /not JSON/],
    ['missing rationale', { content: { decision: 'answer', answer: 'M' } }, /rationale/],
    ['an unknown decision', { content: { decision: 'maybe', rationale: 'x' } }, /decision/],
    [
      'an answer outside the options',
      { content: { decision: 'answer', answer: 'XXL', rationale: 'x', confidence: 1 } },
      /not one of the options/,
    ],
    [
      'approve on a question',
      { content: { decision: 'approve', rationale: 'x', confidence: 1 } },
      /on a question/,
    ],
    ['HTTP 500', { status: 500 }, /HTTP 500/],
  ])('fails closed on %s', async (_name, reply, error) => {
    llm.reply(reply);
    const d = await agent();
    expect(d).toMatchObject({ strategy: 'fail_closed', requested: 'agent', model: 'test-model' });
    expect(d.answer).toBeUndefined();
    expect(d.rationale).toMatch(error);
  });

  it('fails closed when the model is slower than the budget, within the budget', async () => {
    llm.reply({
      delayMs: 3000,
      content: { decision: 'answer', answer: 'M', rationale: 'late', confidence: 1 },
    });
    // The model answers after 3 s: only the 400 ms budget can make this fail closed.
    const d = await agent(sizes, 'service-timer', 400);
    expect(d).toMatchObject({ strategy: 'fail_closed', error: 'the model did not answer in time' });
  });

  it('does not even ask when no time is left', async () => {
    const before = llm.requests.length;
    const d = await agent(sizes, 'service-timer', 10);
    expect(d.strategy).toBe('fail_closed');
    expect(llm.requests.length).toBe(before);
  });

  describe('the gate over the model', () => {
    it('approves a non-critical action at confidence 0.7', async () => {
      llm.reply({ content: { decision: 'approve', rationale: 'Routine cleanup.', confidence: 0.7 } });
      expect(await agent(approval())).toMatchObject({ strategy: 'agent', answer: 'approve' });
    });

    it.each([
      ['a low confidence', false, 0.69],
      ['a confidence given as a string', false, '0.9'],
      ['a boolean confidence', false, true],
      ['no confidence', false, undefined],
      ['a confidence above 1', false, 1.5],
      ['a critical action', true, 0.99],
    ])('rejects a model approval with %s', async (_name, critical, confidence) => {
      llm.reply({ content: { decision: 'approve', rationale: 'Looks fine.', confidence } });
      const d = await agent(approval({ critical }));
      expect(d).toMatchObject({ strategy: 'fail_closed', requested: 'agent', answer: 'reject' });
      expect(d.rationale).toMatch(critical ? /critical inquiry/ : /agent would approve, but/);
    });
  });
});

describe('suggestions', () => {
  it('proposes the model answer when it fits', async () => {
    llm.reply({ content: { decision: 'answer', answer: 'S', rationale: 'small feet', confidence: 0.6 } });
    expect(await decider.suggest({ inquiry: sizes, budgetMs: 1000 })).toMatchObject({
      answer: 'S',
      model: 'test-model',
    });
  });

  it('proposes nothing for an unfit answer or an approval', async () => {
    llm.reply({ content: { decision: 'answer', answer: 'XXL', rationale: 'x' } });
    expect((await decider.suggest({ inquiry: sizes, budgetMs: 1000 })).answer).toBeUndefined();
    expect((await decider.suggest({ inquiry: approval(), budgetMs: 1000 })).answer).toBeUndefined();
  });
});
