import type { ProxyStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { AskHuman } from '../approval/ask-human.js';
import type { StandingCheck } from '../approval/standing-check.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { Backend } from '../backend/backend.js';
import type { Policy } from '../policy/policy-schema.js';

export interface Clock {
  now(): number;
}

/** Timing of the proxy's calls, ms. */
export interface CallTimings {
  /** The backend call's own timeout (reset by backend progress). */
  backendTimeoutMs: number;
  /** How long an approval holds the agent's call when the policy sets no timeout: the node's service tier. */
  holdMs: number;
  /** Extra time after the approval window before a grant expires (delivery of a last-second answer). */
  grantGraceMs: number;
  /** How long a finished idempotent result is kept. */
  resultRetentionMs: number;
}

/** Everything a tool call needs, passed in one object. */
export interface CallDeps {
  backend: Backend;
  store: ProxyStore;
  policy: Policy;
  asker: AskHuman;
  /** Standing approvals (the node's); absent: every gated call is asked. */
  standing?: StandingCheck;
  audit: AuditSink;
  clock: Clock;
  logger: Logger;
  timings: CallTimings;
}
