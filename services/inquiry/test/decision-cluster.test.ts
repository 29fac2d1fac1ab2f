import { type FakeChatModel, startFakeChatModel } from '@hitl/decisions/testing';
import type { DecisionRecord, Page } from '@hitl/protocol';
import { eventually, startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_TIERS, serviceTimesOut } from './decision-helpers.js';
import { body, startTestNode, type TestNode } from './harness.js';

describe('two nodes on one Redis decide a timed-out inquiry once', () => {
  let redis: TestRedisServer;
  let llm: FakeChatModel;
  let a: TestNode;
  let b: TestNode;
  beforeAll(async () => {
    redis = await startRedisServer();
    llm = await startFakeChatModel();
    const env = { ...SHORT_TIERS, REDIS_URL: redis.url, HITL_LLM_URL: llm.url, HITL_LLM_MODEL: 'm' };
    // Both nodes sweep every 100 ms, so both see the deadline pass.
    a = await startTestNode('memory', env);
    b = await startTestNode('memory', env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await llm?.close();
    await redis?.stop();
  });

  it('one model call, one resolution, one audit record, readable from either node', async () => {
    llm.reply({
      delayMs: 400,
      content: { decision: 'answer', answer: 'blue', rationale: 'Usual colour.', confidence: 0.9 },
    });
    const r = await serviceTimesOut(a, {
      question: 'Which colour?',
      options: ['red', 'blue'],
      fallback: { onTimeout: 'agent' },
    });
    expect(r.structured).toMatchObject({
      status: 'timed_out',
      answer: 'blue',
      resolvedBy: { kind: 'decision-agent', strategy: 'agent', trigger: 'service-timer' },
    });
    const ops = await b.token('ops', 'ops');
    let records: DecisionRecord[] = [];
    await eventually(async () => {
      const page = await body<Page<DecisionRecord>>(await b.rest('/api/decisions?limit=50', { token: ops }));
      records = page.items.filter((d) => d.inquiryId === r.structured.inquiryId);
      return records.length > 0;
    });
    // time itself is under test: no second decider shows up for a while.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const again = await body<Page<DecisionRecord>>(await a.rest('/api/decisions?limit=50', { token: ops }));
    expect(again.items.filter((d) => d.inquiryId === r.structured.inquiryId)).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
  });
});
