import type { DecisionRecord } from '@hitl/protocol';
import type { Logger } from 'pino';
import type { AuditSink, ProxyDecision } from './audit-sink.js';

/** A decision record before the log gives it an id (the decision-agent's `NewDecisionRecord`). */
export type NewProxyRecord = Omit<DecisionRecord, 'id'>;

/** Anything that appends decision records, e.g. `RedisDecisionLog` from `@hitl/decision-agent`. */
export interface DecisionAppender {
  append(record: NewProxyRecord): Promise<unknown>;
}

const ARGUMENTS_CHARS = 2000;

type Mapped = Pick<NewProxyRecord, 'outcome' | 'decidedBy' | 'strategy' | 'output' | 'rationale' | 'error'>;

/** How each proxy outcome reads in the shared audit log (trigger `proxy`). */
function mapOutcome(d: ProxyDecision): Mapped {
  switch (d.outcome) {
    case 'passed':
      return {
        outcome: 'answered',
        decidedBy: 'decision-agent',
        strategy: 'approve',
        output: 'approve',
        rationale: 'mode "yolo": no human asked',
      };
    case 'approved':
      return { outcome: 'answered', decidedBy: 'human', output: 'approve' };
    case 'standing':
      return {
        outcome: 'answered',
        decidedBy: 'human',
        output: 'approve',
        rationale: `covered by standing approval ${d.standingId ?? ''}: no one was asked this time`,
      };
    case 'rejected':
      return { outcome: 'answered', decidedBy: 'human', output: 'reject' };
    case 'refused':
      return { outcome: 'refused', decidedBy: 'human' };
    case 'timed_out':
      return { outcome: 'timed_out', decidedBy: 'service-timer' };
    case 'cancelled':
      return { outcome: 'cancelled', decidedBy: 'agent' };
    case 'expired':
      return {
        outcome: 'timed_out',
        decidedBy: 'human',
        output: 'approve',
        error: 'the approval expired before use; nothing executed',
      };
    case 'failed':
      return {
        outcome: 'cancelled',
        decidedBy: 'agent',
        error: d.detail ?? 'the approval could not be asked',
      };
  }
}

/** A proxy decision as a `DecisionRecord` of the decision audit log. */
function clip(args: string): string {
  return args.length > ARGUMENTS_CHARS ? `${args.slice(0, ARGUMENTS_CHARS - 1)}…` : args;
}

export function toDecisionRecord(d: ProxyDecision): NewProxyRecord {
  const args = clip(d.arguments);
  return {
    at: d.at,
    // A YOLO pass asks nobody; its record is keyed by the call's digest instead.
    inquiryId: d.inquiryId ?? `proxy:${d.digest.slice(0, 26)}`,
    userId: d.userId,
    kind: 'approval',
    question: `Allow "${d.tool}" on ${d.server}?`,
    context: {
      server: d.server,
      tool: d.tool,
      arguments: args,
      digest: d.digest,
      mode: d.mode,
      reason: d.reason,
      ...(d.idempotencyKey ? { idempotencyKey: d.idempotencyKey } : {}),
      ...(d.deviceName ? { deviceName: d.deviceName } : {}),
      // An edited approval keeps both digests: the call asked and the call that ran.
      ...(d.approvedDigest ? { approvedDigest: d.approvedDigest } : {}),
      ...(d.approvedArguments ? { approvedArguments: clip(d.approvedArguments) } : {}),
    },
    trigger: 'proxy',
    latencyMs: 0,
    elapsedMs: d.elapsedMs,
    ...mapOutcome(d),
    ...(d.said ? { reason: d.said } : {}),
    ...(d.changed?.length ? { changed: d.changed } : {}),
    ...(d.standingId ? { standingId: d.standingId } : {}),
  };
}

/** Appends every decision to the shared audit log and logs it with pino too. */
export function decisionLogSink(log: DecisionAppender, logger: Logger): AuditSink {
  const line = logger.child({ audit: 'proxy' });
  return {
    record: async (decision) => {
      line.info({ decision }, 'proxy decision');
      await log.append(toDecisionRecord(decision));
    },
  };
}
