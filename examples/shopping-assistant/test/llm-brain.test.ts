import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmBrain } from '../src/agent/llm-brain.js';
import { loadCatalogue } from '../src/catalogue/load.js';
import { type FakeLlm, startFakeLlm } from './fake-llm.js';
import { product } from './fixtures.js';
import { type LiveNode, runDemo, scriptedDevice, startLiveNode } from './live.js';
import { checkRecommendations } from './shopper.js';

const shortlist = [product({ id: 'SKU-0001' }), product({ id: 'SKU-0002' }), product({ id: 'SKU-0003' })];
const pickInput = {
  request: 'running shoes',
  instructions: 'ask first',
  facts: {},
  ranked: shortlist,
  count: 2,
};
const phraseInput = {
  request: 'running shoes',
  instructions: 'ask first',
  slots: ['size' as const],
  question: 'Which size do you need in the running shoes?',
  options: ['41', '42'],
};

describe('the model brain (OpenAI-compatible endpoint)', () => {
  it('phrases questions and picks only among products the planner found', async () => {
    const llm = await startFakeLlm((request) =>
      request.messages[0]?.content.includes('Rewrite the draft question')
        ? '"What size do your running shoes need to be?"'
        : 'Sure! {"ids": ["SKU-0003", "SKU-9999", "SKU-0003", "SKU-0001"], "reason": "best cushioning"}',
    );
    try {
      const brain = llmBrain({ url: llm.url, model: 'test-model', apiKey: 'k' });
      expect(await brain.phraseQuestion(phraseInput)).toBe('What size do your running shoes need to be?');
      const picks = await brain.pickProducts(pickInput);
      // An id that is not on the shortlist (SKU-9999) and a repeat are dropped.
      expect(picks.products.map((p) => p.id)).toEqual(['SKU-0003', 'SKU-0001']);
      expect(picks.note).toBe('best cushioning');
      expect(llm.requests[0]).toMatchObject({ model: 'test-model' });
      expect(llm.requests[0]?.messages[0]?.content).toContain('ask first');
    } finally {
      await llm.close();
    }
  });

  it('falls back to the rules, and says so, when the model fails or answers nonsense', async () => {
    let call = 0;
    const llm = await startFakeLlm(() => (++call === 1 ? { status: 500 } : 'I would pick the red ones'));
    const warnings: string[] = [];
    try {
      const brain = llmBrain({ url: llm.url, model: 'm', warn: (w) => warnings.push(w) });
      expect(await brain.phraseQuestion(phraseInput)).toBe(phraseInput.question);
      expect((await brain.pickProducts(pickInput)).products.map((p) => p.id)).toEqual([
        'SKU-0001',
        'SKU-0002',
      ]);
      expect(warnings).toEqual([
        'phrasing a question failed (model endpoint answered HTTP 500); using rules',
        'picking products failed (the model did not reply with {"ids": [...]}); using rules',
      ]);
    } finally {
      await llm.close();
    }
  });
});

describe('the demo with HITL_LLM_URL set, against a live node', () => {
  let live: LiveNode;
  let llm: FakeLlm;
  beforeAll(async () => {
    live = await startLiveNode();
    const catalogue = await loadCatalogue();
    llm = await startFakeLlm((request) => {
      if (request.messages[0]?.content.includes('Rewrite the draft question')) return 'Quick one: your size?';
      // Pick the last product of the shortlist, to show the model's choice is used (and still fits).
      const { shortlist: offered } = JSON.parse(request.messages[1]?.content ?? '{}') as {
        shortlist: { id: string }[];
      };
      expect(offered.every((p) => catalogue.some((c) => c.id === p.id))).toBe(true);
      return JSON.stringify({ ids: [offered.at(-1)?.id] });
    });
  });
  afterAll(async () => {
    await live?.close();
    await llm?.close();
  });

  it('asks in the model’s words and recommends its pick, which still fits the answers', async () => {
    const user = `shopper-${randomUUID().slice(0, 8)}`;
    const device = await scriptedDevice(live, user, (inquiry) => ({ answer: inquiry.options?.[2] ?? '' }));
    const run = await runDemo(['--json', '--user', user, '--count', '1', 'black sneakers under 100 euros'], {
      ...live.env,
      HITL_LLM_URL: llm.url,
      HITL_LLM_MODEL: 'test-model',
    });
    await device.close();
    expect(run.code).toBe(0);
    expect(run.json?.brain).toBe('model test-model');
    expect(device.seen.map((i) => i.question)).toEqual(['Quick one: your size?']);
    expect(run.json?.recommendations).toHaveLength(1);
    for (const check of checkRecommendations(run.json!, await loadCatalogue())) {
      expect(check).toMatchObject({
        sizeInStock: true,
        colourFits: true,
        withinBudget: true,
        type: 'sneakers',
      });
    }
  });
});
