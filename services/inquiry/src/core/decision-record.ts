import type { Decision } from '@hitl/decisions';
import type { DecisionRecord, DecisionTrigger, Inquiry } from '@hitl/protocol';
import { auditContext, type NewDecisionRecord } from '@hitl/store';
import type { Ending } from './outcomes.js';

const TRIGGERS: Record<Ending['type'], DecisionTrigger> = {
  answer: 'human',
  refusal: 'refusal',
  'device-timer': 'device-timer',
  'service-timer': 'service-timer',
  cancel: 'cancel',
};

/**
 * The audit record of an inquiry that `ending` just resolved (this node won the resolve), with the
 * machine decision behind it when a fallback strategy ran.
 */
export function decisionRecordFor(inquiry: Inquiry, ending: Ending, decision?: Decision): NewDecisionRecord {
  const at = inquiry.resolvedAt ?? inquiry.createdAt;
  const elapsedMs = Math.max(0, at - inquiry.createdAt);
  // A person decides by answering or declining: their latency is the time they took.
  const human = ending.type === 'answer' || ending.type === 'refusal';
  const record: NewDecisionRecord = {
    at,
    inquiryId: inquiry.inquiryId,
    userId: inquiry.userId,
    kind: inquiry.kind,
    question: inquiry.question,
    outcome: inquiry.status as DecisionRecord['outcome'],
    trigger: TRIGGERS[ending.type],
    decidedBy: inquiry.resolvedBy?.kind ?? 'human',
    latencyMs: decision?.latencyMs ?? (human ? elapsedMs : 0),
    elapsedMs,
  };
  const context = auditContext(inquiry.context);
  if (context !== undefined) record.context = context;
  const strategy = decision?.strategy ?? inquiry.resolvedBy?.strategy;
  if (strategy) record.strategy = strategy;
  if (inquiry.answer !== undefined) record.output = inquiry.answer;
  const rationale = decision?.rationale ?? inquiry.resolvedBy?.rationale;
  if (rationale) record.rationale = rationale;
  if (decision?.model) record.model = decision.model;
  if (decision?.error) record.error = decision.error;
  if (inquiry.audience) record.audience = inquiry.audience;
  if (inquiry.team) record.team = inquiry.team;
  if (inquiry.escalation?.escalatedAt !== undefined) record.escalation = inquiry.escalation;
  if (inquiry.votes) record.votes = inquiry.votes;
  if (inquiry.reason !== undefined) record.reason = inquiry.reason;
  if (inquiry.changed?.length) record.changed = inquiry.changed;
  return record;
}
