import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import { stockIn } from '../src/planner/candidates.js';
import { type LiveNode, runDemo, scriptedDevice, startLiveNode } from './live.js';
import { checkRecommendations, pickingCustomer, slotAsked } from './shopper.js';

const catalogue = await loadCatalogue();
const newUser = () => `shopper-${randomUUID().slice(0, 8)}`;

describe('the demo against a live node, a scripted phone answering', () => {
  let live: LiveNode;
  beforeAll(async () => {
    live = await startLiveNode();
  });
  afterAll(async () => {
    await live?.close();
  });

  it('rounds: asks size, colour, budget one at a time, then recommends what fits all three', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, pickingCustomer());
    const run = await runDemo(['--json', '--user', user], live.env);
    await device.close();
    expect(run.code).toBe(0);
    const result = run.json!;
    expect(result).toMatchObject({ style: 'rounds', brain: 'rules', ending: 'recommended', rounds: 3 });
    expect(device.seen.map(slotAsked)).toEqual(['size', 'colour', 'budget']);
    for (const inquiry of device.seen) {
      expect(inquiry.options?.length).toBeGreaterThan(1);
      expect(inquiry.questions).toBeUndefined();
    }
    expect(device.acks).toEqual([
      { ok: true, status: 'answered' },
      { ok: true, status: 'answered' },
      { ok: true, status: 'answered' },
    ]);
    expect(result.facts).toMatchObject({
      type: { value: 'running shoes', source: 'request' },
      size: { value: device.seen[0]?.options?.[1], source: 'customer' },
      colour: { value: device.seen[1]?.options?.[0], source: 'customer' },
      budget: { value: Number(device.seen[2]?.options?.[0]?.replace(/\D/g, '')), source: 'customer' },
    });
    expect(result.recommendations.length).toBeGreaterThan(0);
    for (const check of checkRecommendations(result, catalogue)) {
      expect(check).toMatchObject({
        sizeInStock: true,
        colourFits: true,
        withinBudget: true,
        type: 'running shoes',
      });
    }
  });

  it('form: one structured form with proposed defaults; the recommendation fits the answers', async () => {
    const user = newUser();
    // An answer the shelf can satisfy: a pair actually in stock, with its colour and a budget just above it.
    const target = catalogue.find((p) => p.type === 'hoodie' && stockIn(p, 'S') > 0 && p.price > 50)!;
    const budget = Math.ceil(target.price);
    const device = await scriptedDevice(live, user, () => ({
      answer: { size: 'S', colour: target.colour, budget },
    }));
    const run = await runDemo(['--json', '--style', 'form', '--user', user, 'a hoodie'], live.env);
    await device.close();
    expect(run.code).toBe(0);
    const result = run.json!;
    expect(result).toMatchObject({ style: 'form', ending: 'recommended', rounds: 1 });
    expect(device.seen).toHaveLength(1);
    const form = device.seen[0]!;
    expect(form.format).toBe('form');
    expect(form.questions?.map((q) => [q.id, q.kind])).toEqual([
      ['size', 'choice'],
      ['colour', 'choice'],
      ['budget', 'number'],
    ]);
    // The assistant proposes the size most bought for hoodies (counting only sizes on the shelf).
    const proposed = form.questions?.[0]?.default;
    expect(form.defaultAnswer).toMatchObject({ size: proposed, colour: 'Any colour' });
    expect(form.questions?.[0]?.options).toContain(proposed);
    expect(result.facts).toMatchObject({
      size: { value: 'S', source: 'customer' },
      colour: { value: target.colour, source: 'customer' },
      budget: { value: budget, source: 'customer' },
    });
    const checks = checkRecommendations(result, catalogue);
    expect(checks.map((c) => c.id)).toContain(target.id);
    for (const check of checks) {
      expect(check).toMatchObject({
        sizeInStock: true,
        colourFits: true,
        withinBudget: true,
        type: 'hoodie',
      });
    }
  });

  it('rounds, refused: goes on with a stated assumption and still honours the answers given', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, pickingCustomer(['colour']));
    const run = await runDemo(['--user', user], live.env);
    await device.close();
    expect(run.code).toBe(0);
    expect(device.acks[1]).toEqual({ ok: true, status: 'refused' });
    expect(run.stdout).toContain('✗ customer would rather not say');
    expect(run.stdout).toContain("any colour (assumed: you'd rather not say)");
    expect(run.stdout).toMatch(/In short: .*size \S+ \(your answer\).*any colour \(assumed/);
    expect(run.stdout).toContain('Recommendations:');
  });

  it('form, refused: assumes the proposed size, any colour, no limit, and says so', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, () => ({ refuse: true }));
    const run = await runDemo(['--json', '--style', 'form', '--user', user], live.env);
    await device.close();
    expect(run.code).toBe(0);
    const result = run.json!;
    const proposed = device.seen[0]?.questions?.[0]?.default;
    expect(result.facts).toMatchObject({
      size: {
        value: proposed,
        source: 'assumed',
        note: "the size most bought for these; you'd rather not say",
      },
      colour: { value: null, source: 'assumed', note: "you'd rather not say" },
      budget: { value: null, source: 'assumed', note: "you'd rather not say" },
    });
    expect(result.events.find((e) => e.type === 'reply')).toMatchObject({ reply: { kind: 'refused' } });
    for (const check of checkRecommendations(result, catalogue)) expect(check.sizeInStock).toBe(true);
  });

  for (const style of ['rounds', 'form'] as const) {
    it(`${style}, cancelled: Ctrl-C closes the question on every device and nothing is recommended`, async () => {
      const user = newUser();
      const device = await scriptedDevice(live, user, () => ({ ignore: true }));
      const controller = new AbortController();
      try {
        const run = await runDemo(['--style', style, '--user', user], live.env, {
          signal: controller.signal,
          onStdout: (text) => {
            if (text.includes('waiting for an answer')) controller.abort(new Error('the customer left'));
          },
        });
        expect(run.code).toBe(130);
        expect(run.stdout).toContain('■ the question was cancelled before anyone answered');
        expect(run.stdout).toContain('Assistant stopped: the question was cancelled');
        expect(run.stdout).not.toContain('Recommendations:');
        expect(device.seen).toHaveLength(1);
        // The device stays connected until the close reaches it: the demo exits as soon as it has
        // sent the cancel, and the node tells devices once the cancel is on disk, a moment later.
        await expect
          .poll(() => device.resolved)
          .toEqual([
            { inquiryId: device.seen[0]?.inquiryId, status: 'cancelled', resolvedBy: { kind: 'agent' } },
          ]);
      } finally {
        await device.close();
      }
    });
  }

  it('takes HITL_AGENT_TOKEN when given, and asks that token’s user', async () => {
    const user = newUser();
    const token = await live.node.tokens.sign({ sub: user, role: 'agent', name: 'shopping assistant' });
    const device = await scriptedDevice(live, user, pickingCustomer());
    const run = await runDemo(['--json', 'a navy hoodie in size M'], {
      HITL_URL: live.node.url,
      HITL_AGENT_TOKEN: token,
    });
    await device.close();
    expect(run.code).toBe(0);
    expect(device.seen.map(slotAsked)).toEqual(['budget']);
    expect(run.json?.facts).toMatchObject({ size: { value: 'M' }, colour: { value: 'navy' } });
  });

  it('explains what is wrong when it cannot start', async () => {
    const refused = await runDemo(['--user', newUser()], { ...live.env, HITL_AGENT_TOKEN: 'not-a-token' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the agent token/);
    const unreachable = await runDemo([], { HITL_URL: 'http://127.0.0.1:9', HITL_AGENT_TOKEN: 'x' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach the inquiry service at http://127.0.0.1:9/mcp');
    const usage = await runDemo(['--style', 'chat'], live.env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--style: .*rounds.*form/);
  });
});
