import type { InquiryResult } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { factsFromReply } from '../src/planner/apply-reply.js';
import { classifyResult } from '../src/planner/reply.js';
import { describeFacts, describeReply } from '../src/transcript/render.js';
import { product } from './fixtures.js';

const shelf = [
  product({
    id: 'SKU-0001',
    colour: 'red',
    price: 80,
    stock: { '40': 1, '41': 3 },
    sold: { '40': 10, '41': 90 },
  }),
  product({
    id: 'SKU-0002',
    colour: 'blue',
    price: 120,
    stock: { '40': 2, '41': 0 },
    sold: { '40': 30, '41': 5 },
  }),
];
const result = (fields: Partial<InquiryResult>): InquiryResult => ({
  inquiryId: '01TEST',
  status: 'answered',
  elapsedMs: 10,
  ...fields,
});

describe('reading how a question ended', () => {
  it('takes only a human answer as the customer’s', () => {
    const reply = classifyResult(
      result({ answer: 'blue', resolvedBy: { kind: 'human', deviceName: 'phone' } }),
    );
    expect(reply).toEqual({ kind: 'answered', answer: 'blue', deviceName: 'phone' });
    expect(factsFromReply(['colour'], reply, shelf)).toEqual({
      colour: { value: 'blue', source: 'customer' },
    });
    expect(describeReply(reply)).toBe('customer answered on phone: blue');
  });

  it('goes on after a refusal with stated assumptions, never the preset text', () => {
    const reply = classifyResult(
      result({
        status: 'refused',
        answer: "I'm not sure about the details; decide as you see fit.",
        resolvedBy: { kind: 'human', strategy: 'preset_text' },
      }),
    );
    expect(reply).toEqual({ kind: 'refused' });
    const facts = factsFromReply(['size', 'colour', 'budget'], reply, shelf);
    expect(facts).toEqual({
      size: { value: '41', source: 'assumed', note: "the size most bought for these; you'd rather not say" },
      colour: { value: null, source: 'assumed', note: "you'd rather not say" },
      budget: { value: null, source: 'assumed', note: "you'd rather not say" },
    });
    expect(describeFacts(facts)).toContain(
      "size 41 (assumed: the size most bought for these; you'd rather not say)",
    );
  });

  it('says nobody answered when a timer ended the wait', () => {
    for (const [kind, timer] of [
      ['service-timer', 'service'],
      ['device-timer', 'device'],
    ] as const) {
      const reply = classifyResult(
        result({ status: 'timed_out', answer: "I'm busy", resolvedBy: { kind, strategy: 'preset_text' } }),
      );
      expect(reply).toEqual({ kind: 'timed_out', timer });
      expect(describeReply(reply)).toMatch(/^nobody answered in time/);
      expect(factsFromReply(['colour'], reply, shelf).colour).toMatchObject({ source: 'assumed' });
    }
  });

  it('labels what the fallback decision agent decided, whatever the status', () => {
    for (const status of ['timed_out', 'answered'] as const) {
      const reply = classifyResult(
        result({
          status,
          answer: '40',
          resolvedBy: { kind: 'decision-agent', strategy: 'default_answer', trigger: 'service-timer' },
        }),
      );
      expect(reply).toEqual({
        kind: 'decided',
        answer: '40',
        strategy: 'default_answer',
        trigger: 'service-timer',
      });
      expect(factsFromReply(['size'], reply, shelf)).toEqual({
        size: { value: '40', source: 'decision-agent' },
      });
      expect(describeReply(reply)).toBe(
        'no human answered; the fallback decision agent decided (default_answer, after service-timer): 40',
      );
      expect(describeFacts({ size: { value: '40', source: 'decision-agent' } })).toBe(
        'size 40 (decided by the fallback decision agent, not by you)',
      );
    }
  });

  it('falls back to an assumption when the decision agent gave nothing usable (fail_closed)', () => {
    const reply = classifyResult(
      result({ status: 'timed_out', resolvedBy: { kind: 'decision-agent', strategy: 'fail_closed' } }),
    );
    expect(factsFromReply(['size'], reply, shelf).size).toEqual({
      value: '41',
      source: 'assumed',
      note: 'the size most bought for these; the fallback gave no usable answer',
    });
  });

  it('stops on a cancel, learning nothing', () => {
    const reply = classifyResult(result({ status: 'cancelled', resolvedBy: { kind: 'agent' } }));
    expect(reply).toEqual({ kind: 'cancelled' });
    expect(factsFromReply(['size'], reply, shelf)).toEqual({});
  });

  it('reads a form answer field by field; a blank field becomes a stated assumption', () => {
    const reply = classifyResult(
      result({ answer: { size: '40', colour: 'Any colour', budget: 100 }, resolvedBy: { kind: 'human' } }),
    );
    expect(factsFromReply(['size', 'colour', 'budget'], reply, shelf)).toEqual({
      size: { value: '40', source: 'customer' },
      colour: { value: null, source: 'customer' },
      budget: { value: 100, source: 'customer' },
    });
    const partial = classifyResult(
      result({ answer: { size: '40', colour: '' }, resolvedBy: { kind: 'human' } }),
    );
    expect(factsFromReply(['size', 'colour', 'budget'], partial, shelf)).toMatchObject({
      colour: { value: null, source: 'assumed', note: 'left open' },
      budget: { value: null, source: 'assumed' },
    });
  });

  it('reads option labels of single questions', () => {
    const answered = (answer: string) => classifyResult(result({ answer, resolvedBy: { kind: 'human' } }));
    expect(factsFromReply(['budget'], answered('Up to €90'), shelf).budget?.value).toBe(90);
    expect(factsFromReply(['budget'], answered('No limit'), shelf).budget?.value).toBeNull();
    expect(factsFromReply(['size'], answered('41'), shelf).size?.value).toBe('41');
    // A size nobody has on the shelf is no answer the shop can use.
    expect(factsFromReply(['size'], answered('46'), shelf).size?.source).toBe('assumed');
  });
});
