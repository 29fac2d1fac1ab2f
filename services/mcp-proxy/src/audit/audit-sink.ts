import type { Logger } from 'pino';
import type { GateReason } from '../policy/gate.js';
import type { Mode } from '../policy/policy-schema.js';

/** How a gated or YOLO-passed call ended, as far as the gate is concerned. */
export type ProxyOutcome =
  | 'passed'
  | 'approved'
  /** Covered by a standing approval (`standingId`): no one was asked this time. */
  | 'standing'
  | 'rejected'
  | 'refused'
  | 'timed_out'
  | 'cancelled'
  | 'expired'
  | 'failed';

/** One proxy decision: a call passed without a human in `yolo` mode, or any human approval outcome. */
export interface ProxyDecision {
  /** Epoch ms when the decision was made. */
  at: number;
  userId: string;
  /** The backend as the human saw it (`action.server`). */
  server: string;
  tool: string;
  /** sha256 of (user, backend, tool, canonical arguments): what an approval was bound to. */
  digest: string;
  /** The canonical JSON of the arguments the human saw. */
  arguments: string;
  mode: Mode;
  reason: GateReason;
  outcome: ProxyOutcome;
  inquiryId?: string;
  deviceName?: string;
  idempotencyKey?: string;
  /** From the call's arrival to the decision, ms. */
  elapsedMs: number;
  /** What went wrong, for `failed` and `expired`. */
  detail?: string;
  /** The person's reason for a reject or a refusal. */
  said?: string;
  /** An approval of edited arguments: the digest of the call that ran (`digest` is the asked one's). */
  approvedDigest?: string;
  /** An approval of edited arguments: their canonical JSON. */
  approvedArguments?: string;
  /** An approval of edited arguments: the names the person changed. */
  changed?: string[];
  /** A call that ran under a standing approval (no one asked): its id. */
  standingId?: string;
}

/** Where proxy decisions go. Recording must not throw into the call; a sink logs its own failures. */
export interface AuditSink {
  record(decision: ProxyDecision): void | Promise<void>;
}

/** The default sink: one structured pino line per decision (`msg: "proxy decision"`). */
export function pinoAuditSink(logger: Logger): AuditSink {
  const log = logger.child({ audit: 'proxy' });
  return {
    record: (decision) => log.info({ decision }, 'proxy decision'),
  };
}
