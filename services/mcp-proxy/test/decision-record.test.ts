import { DecisionRecordSchema } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import type { ProxyDecision, ProxyOutcome } from '../src/audit/audit-sink.js';
import { toDecisionRecord } from '../src/audit/decision-record.js';

const base: ProxyDecision = {
  at: 1_700_000_000_000,
  userId: 'ann',
  server: 'ledger',
  tool: 'charge',
  digest: 'a'.repeat(64),
  arguments: '{"amount":5}',
  mode: 'gated',
  reason: 'destructive',
  outcome: 'approved',
  elapsedMs: 1234,
};

describe('proxy decisions in the shared audit log', () => {
  const outcomes: ProxyOutcome[] = [
    'passed',
    'approved',
    'rejected',
    'refused',
    'timed_out',
    'cancelled',
    'expired',
    'failed',
  ];

  it.each(outcomes)('writes a valid DecisionRecord with trigger "proxy" for %s', (outcome) => {
    const record = toDecisionRecord({ ...base, outcome, inquiryId: 'inq-1' });
    expect(DecisionRecordSchema.omit({ id: true }).parse(record)).toEqual(record);
    expect(record).toMatchObject({ trigger: 'proxy', kind: 'approval', userId: 'ann', inquiryId: 'inq-1' });
  });

  it('never records an approval for anything but a human approve (or a YOLO pass, labelled as such)', () => {
    const approving = outcomes.filter(
      (outcome) => toDecisionRecord({ ...base, outcome }).output === 'approve',
    );
    expect(approving).toEqual(['passed', 'approved', 'expired']);
    expect(toDecisionRecord({ ...base, outcome: 'passed' })).toMatchObject({
      decidedBy: 'decision-agent',
      strategy: 'approve',
    });
    expect(toDecisionRecord({ ...base, outcome: 'expired' }).error).toContain('nothing executed');
  });
});
