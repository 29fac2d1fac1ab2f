import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Inquiry, InquiryResult } from '@hitl/protocol';
import { ConfigError, loadConfig } from '@hitl/runtime';
import { describe, expect, it } from 'vitest';
import { decisionRecordFor } from '../src/core/decision-record.js';
import { decisionDeadline } from '../src/core/fallback.js';
import { decisionResolution } from '../src/core/outcomes.js';
import { resultText } from '../src/mcp/result-text.js';

const deadlines = (serviceAt: number, clientAt: number) => ({ deviceAt: 0, serviceAt, clientAt });

describe('the decision budget', () => {
  it('ends before the midpoint of the service→client gap, where a held call gives up', () => {
    expect(decisionDeadline(deadlines(50_000, 90_000))).toBe(66_000);
    expect(decisionDeadline(deadlines(2000, 4000))).toBe(2800);
    // A tiny gap still keeps half a second.
    expect(decisionDeadline(deadlines(2000, 2600))).toBe(2100);
  });
});

describe('what the model reads after a fallback', () => {
  const decided = (resolvedBy: InquiryResult['resolvedBy'], answer?: string): string =>
    resultText({
      inquiryId: 'i1',
      status: 'timed_out',
      elapsedMs: 5,
      resolvedBy,
      ...(answer ? { answer } : {}),
    });

  it('never reads as a person, and never as an approval when it failed closed', () => {
    const text = decided(
      {
        kind: 'decision-agent',
        strategy: 'fail_closed',
        trigger: 'service-timer',
        rationale: 'Failed closed: policy.',
      },
      'reject',
    );
    expect(text).toMatch(
      /^No human answered: nobody answered before the service timeout\. This is NOT a human answer/,
    );
    expect(text).toMatch(/The action is rejected and nothing was approved: do not run it\./);
    expect(text).toMatch(/reasoning: Failed closed: policy\.$/);
  });

  it('labels a machine answer and a machine approval as such', () => {
    const answer = decided({ kind: 'decision-agent', strategy: 'random', trigger: 'device-timer' }, 'blue');
    expect(answer).toMatch(/the person's device timed out/);
    expect(answer).toMatch(/Machine-chosen answer \(no person confirmed it\): blue/);
    const yolo = decided({ kind: 'decision-agent', strategy: 'approve', trigger: 'refusal' }, 'approve');
    expect(yolo).toMatch(/the person declined to answer/);
    expect(yolo).toMatch(/no person approved it/);
    expect(yolo).not.toMatch(/The person answered/);
  });
});

describe('audit records', () => {
  const base: Inquiry = {
    inquiryId: 'i1',
    userId: 'alice',
    asker: { tokenSubject: 'alice' },
    question: 'Which size?',
    format: 'text',
    kind: 'question',
    critical: false,
    createdAt: 1000,
    deadlines: deadlines(3000, 5000),
    status: 'pending',
    context: 'x'.repeat(5000),
  };

  it('records a human answer with its answer time', () => {
    const record = decisionRecordFor(
      {
        ...base,
        status: 'answered',
        answer: 'M',
        resolvedBy: { kind: 'human', deviceName: 'phone' },
        resolvedAt: 4000,
      },
      { type: 'answer', response: 'M', device: {} },
    );
    expect(record).toMatchObject({
      at: 4000,
      elapsedMs: 3000,
      latencyMs: 3000,
      outcome: 'answered',
      trigger: 'human',
    });
    expect(record.strategy).toBeUndefined();
    expect(String(record.context)).toHaveLength(2000);
  });

  it('records a machine decision with its strategy, latency, model and error', () => {
    const ending = { type: 'service-timer' } as const;
    const resolution = decisionResolution(ending, { strategy: 'fail_closed', rationale: 'why' }, 3100);
    const record = decisionRecordFor({ ...base, ...resolution }, ending, {
      strategy: 'fail_closed',
      requested: 'agent',
      rationale: 'why',
      latencyMs: 42,
      model: 'm',
      error: 'HTTP 500',
    });
    expect(record).toMatchObject({
      outcome: 'timed_out',
      trigger: 'service-timer',
      decidedBy: 'decision-agent',
      strategy: 'fail_closed',
      latencyMs: 42,
      model: 'm',
      error: 'HTTP 500',
      rationale: 'why',
    });
  });
});

describe('decision configuration', () => {
  const env = (extra: Record<string, string>) => ({ HITL_STATE_DIR: '/tmp/unused', ...extra });
  const fails = (extra: Record<string, string>) => {
    try {
      loadConfig(env(extra));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('names the bad variable', () => {
    expect(fails({ HITL_LLM_URL: 'http://127.0.0.1:1/v1' })).toMatch(
      /HITL_LLM_MODEL="": required when HITL_LLM_URL/,
    );
    expect(fails({ HITL_LLM_URL: 'not a url', HITL_LLM_MODEL: 'm' })).toMatch(/HITL_LLM_URL="not a url"/);
    expect(fails({ HITL_FORBID_STRATEGIES: 'approve,fail_closed' })).toMatch(/HITL_FORBID_STRATEGIES=/);
    expect(fails({ HITL_FORBID_STRATEGIES: 'yolo' })).toMatch(/HITL_FORBID_STRATEGIES=/);
    expect(fails({ HITL_POLICY_FILE: '/nonexistent/policy.json' })).toMatch(/HITL_POLICY_FILE=.*cannot read/);
    expect(fails({ HITL_DECISION_LOG_MAX: '5' })).toMatch(/HITL_DECISION_LOG_MAX="5"/);
  });

  it('merges the policy file with the server-wide forbidden strategies', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hitl-policy-')), 'p.json');
    writeFileSync(path, JSON.stringify({ forbid: ['random'], users: { bob: { suggest: true } } }));
    const config = loadConfig(
      env({
        HITL_POLICY_FILE: path,
        HITL_FORBID_STRATEGIES: 'approve',
        HITL_LLM_URL: 'http://h/v1',
        HITL_LLM_MODEL: 'm',
      }),
    );
    expect(config.policy).toEqual({ forbid: ['random', 'approve'], users: { bob: { suggest: true } } });
    expect(config.llm).toEqual({ url: 'http://h/v1', model: 'm' });
    expect(loadConfig(env({})).policy).toEqual({});
  });
});
