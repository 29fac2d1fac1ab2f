import { createLocalDecider, openAiChatModel } from '@hitl/decisions';
import { type FakeChatModel, startFakeChatModel } from '@hitl/decisions/testing';
import { MemoryDecisionLog, MemoryInquiryStore, type ResolveResult } from '@hitl/store';
import { eventually, sampleInquiry } from '@hitl/store/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FallbackRunner } from '../src/core/fallback.js';
import { ManualClock } from './manual-clock.js';

describe('the fallback runner on the node’s clock', () => {
  let llm: FakeChatModel;
  beforeAll(async () => {
    llm = await startFakeChatModel();
  });
  afterAll(async () => {
    await llm?.close();
  });

  it('fails closed when its clock passes the decision budget, not the wall clock', async () => {
    // The model would answer in ten minutes of real time: only the fake clock can end the wait.
    llm.reply({
      delayMs: 600_000,
      content: { decision: 'answer', answer: 'M', rationale: 'late', confidence: 1 },
    });
    const clock = new ManualClock(1_000_000);
    const store = new MemoryInquiryStore({ now: () => clock.now() });
    const runner = new FallbackRunner({
      decider: createLocalDecider({ model: openAiChatModel({ url: llm.url, model: 'slow' }), clock }),
      log: new MemoryDecisionLog({ max: 10, now: () => clock.now() }),
      policy: {},
      store,
      clock,
      logger: pino({ level: 'silent' }),
    });
    const created = await store.create(
      sampleInquiry({
        fallback: { onRefusal: 'agent' },
        deadlines: {
          deviceAt: clock.now() + 10_000,
          serviceAt: clock.now() + 20_000,
          clientAt: clock.now() + 60_000,
        },
      }),
    );
    if (created.kind === 'limit') throw new Error('unexpected pending cap');
    const { inquiry } = created;
    const plan = runner.plan(inquiry, { type: 'refusal', device: { deviceName: 'phone' } });
    expect(plan?.choice.strategy).toBe('agent');
    const written: { strategy: string; rationale: string }[] = [];
    let settled = false;
    const result = runner
      .run(inquiry, plan as NonNullable<typeof plan>, async (_resolution, decision) => {
        written.push({ strategy: decision.strategy, rationale: decision.rationale });
        return { kind: 'won', inquiry } satisfies ResolveResult;
      })
      .finally(() => {
        settled = true;
      });
    await eventually(() => llm.requests.length === 1);
    // Budget: the decision deadline (clientAt − 60 % of the 40 s gap = 36 s from now), plus 250 ms of grace.
    clock.advance(36_000 + 249);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock.advance(1);
    await result;
    expect(written).toEqual([
      { strategy: 'fail_closed', rationale: expect.stringMatching(/did not answer within 36000 ms/) },
    ]);
    expect(clock.pending).toBe(0);
  });
});
