import { randomUUID } from 'node:crypto';
import type { OperationPatch } from '@hitl/store';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HumanVerdict } from '../approval/ask-human.js';
import type { ProxyDecision, ProxyOutcome } from '../audit/audit-sink.js';
import { callDigest, canonicalJson } from '../core/call-digest.js';
import { decideGate, type GateDecision, readConfidence } from '../policy/gate.js';
import { approvedParams, schemaOf, standingFor, withEditNotice } from './approved-call.js';
import type { CallDeps } from './call-deps.js';
import { forwardCall } from './forward.js';
import type { ProgressRelay } from './progress-relay.js';
import { type Refusal, refusalResult } from './results.js';

/** The agent's chat as one more device for a held approval (policy `approveInChat`; chat/chat-approval.ts). */
export interface ChatHook {
  /** The node named the approval's inquiry: put it in the chat. */
  inquiry(inquiryId: string): void;
  /** The wait ended with `verdict` (before the result): withdraw the chat's question unless it answered. */
  settled(verdict: HumanVerdict): void;
}

/** One `tools/call` on its way through the gate. */
export interface GatedCall {
  userId: string;
  params: CallToolRequest['params'];
  signal: AbortSignal;
  relay?: ProgressRelay;
  /** The agent's chat, when the call came in a session whose client takes elicitation. */
  chat?: ChatHook;
  idempotencyKey?: string;
  /** Told where the call stands, for `get_operation_status` (idempotent calls only). */
  onStage?: (stage: OperationPatch) => void;
  /**
   * Idempotent calls only: takes the right to run the approved call (the operation moves to
   * `in_progress` while this caller still owns it). False: another caller took the operation over,
   * and nothing runs here.
   */
  claimRun?: () => Promise<boolean>;
}

/** How a gated call ended here: a result, an approval still open after the hold, or handed to another caller. */
export type GatedOutcome =
  | { kind: 'done'; result: CallToolResult }
  | { kind: 'pending'; grantId: string; inquiryId?: string; answerBy?: number }
  | { kind: 'taken' };

/** How long the agent's call is held for an approval, and how long the human has, in ms. */
export interface ApprovalTimes {
  holdMs: number;
  windowMs: number;
}

/**
 * The hold (`approvalTimeoutMs`, else the node's service tier; never longer than the window) and the
 * window (`approvalWindowMs`, else the hold). A window longer than the hold makes the approval
 * outlive the call: the call returns `pending` at the hold's end.
 */
export function approvalTimes(deps: CallDeps, gate: GateDecision): ApprovalTimes {
  const hold = gate.approvalTimeoutMs ?? deps.timings.holdMs;
  const windowMs = gate.approvalWindowMs ?? hold;
  return { holdMs: Math.min(hold, windowMs), windowMs };
}

/** True when an approval for this gate may outlive the agent's call. */
export function outlivesHold(deps: CallDeps, gate: GateDecision): boolean {
  if (!gate.needsHuman) return false;
  const { holdMs, windowMs } = approvalTimes(deps, gate);
  return windowMs > holdMs;
}

/** The call's arguments as an object (absent arguments are `{}`). */
export function argumentsOf(params: CallToolRequest['params']): Record<string, unknown> {
  return params.arguments ?? {};
}

/** The digest a call's approval is bound to. */
export function digestOf(deps: CallDeps, userId: string, params: CallToolRequest['params']): string {
  return callDigest({
    userId,
    backendId: deps.backend.id,
    tool: params.name,
    arguments: argumentsOf(params),
  });
}

/** What the gate says about a call (annotations from the backend, confidence from `_meta`). */
export async function gateFor(deps: CallDeps, params: CallToolRequest['params']): Promise<GateDecision> {
  return decideGate(
    deps.policy,
    params.name,
    await deps.backend.hints(params.name),
    params._meta?.confidence,
  );
}

/** Records a decision about `call` in the audit sink (never throws). */
export type Audit = (outcome: ProxyOutcome, extra?: Partial<ProxyDecision>) => void;

/** The audit function for one call under `gate`, timed from `startedAt`. */
export function auditFor(deps: CallDeps, call: GatedCall, gate: GateDecision, startedAt: number): Audit {
  const digest = digestOf(deps, call.userId, call.params);
  const canonical = canonicalJson(argumentsOf(call.params));
  return (outcome, extra = {}) =>
    recordDecision(deps, { call, gate, digest, canonical, startedAt, outcome, extra });
}

/**
 * Runs a call through the gate: passes it, or asks the human and forwards it only through a
 * single-use grant bound to the digest of exactly this call. Never forwards on anything but a
 * human "approve" recorded and consumed before the grant's expiry. When the approval's window is
 * longer than the hold and the hold ends first, the outcome is `pending` (nothing ran).
 */
export async function runGatedCall(
  deps: CallDeps,
  call: GatedCall,
  gate: GateDecision,
): Promise<GatedOutcome> {
  const startedAt = deps.clock.now();
  const digest = digestOf(deps, call.userId, call.params);
  const canonical = canonicalJson(argumentsOf(call.params));
  const audit = auditFor(deps, call, gate, startedAt);

  if (!gate.needsHuman) {
    if (gate.reason === 'mode_yolo') audit('passed');
    call.onStage?.({ state: 'in_progress' });
    return { kind: 'done', result: await forwardOf(deps, call)() };
  }

  const covered = gate.standing ? await standingFor(deps, call.userId, call.params) : null;
  if (covered) {
    audit('standing', { standingId: covered.id });
    call.onStage?.({ state: 'in_progress' });
    return { kind: 'done', result: await forwardOf(deps, call)() };
  }

  const grantId = randomUUID();
  const times = approvalTimes(deps, gate);
  await deps.store.createGrant({
    grantId,
    userId: call.userId,
    digest,
    expiresAt: startedAt + times.windowMs + deps.timings.grantGraceMs,
  });
  call.onStage?.({ state: 'awaiting_approval', grantId });
  const verdict = await askFor(deps, call, gate, canonical, grantId, times);
  call.chat?.settled(verdict);
  if (verdict.outcome === 'pending' && times.windowMs > times.holdMs) {
    return {
      kind: 'pending',
      grantId,
      ...(verdict.inquiryId ? { inquiryId: verdict.inquiryId } : {}),
      answerBy: startedAt + times.windowMs,
    };
  }
  return settleAndRun(deps, call, grantId, verdict, audit);
}

/** The call's result when it can have no pending outcome (no idempotency key to collect it with). */
export function resultOf(deps: CallDeps, call: GatedCall, outcome: GatedOutcome): CallToolResult {
  if (outcome.kind === 'done') return outcome.result;
  // Not reached: a call whose approval may outlive the hold always runs under a key (proxy-server.ts).
  return refusalResult('timed_out', { tool: call.params.name, server: deps.backend.name });
}

function forwardOf(
  deps: CallDeps,
  call: GatedCall,
  params: CallToolRequest['params'] = call.params,
): () => Promise<CallToolResult> {
  return () =>
    forwardCall(deps.backend, params, {
      signal: call.signal,
      timeoutMs: deps.timings.backendTimeoutMs,
      relay: call.relay,
    });
}

/** Puts the exact call to the caller's human, relaying the wait as progress. */
function askFor(
  deps: CallDeps,
  call: GatedCall,
  gate: GateDecision,
  canonical: string,
  grantId: string,
  times: ApprovalTimes,
): Promise<HumanVerdict> {
  const confidence = readConfidence(call.params._meta?.confidence);
  const holdShorter = times.holdMs < deps.timings.holdMs;
  return deps.asker.ask(
    {
      userId: call.userId,
      action: { server: deps.backend.name, tool: call.params.name, arguments: JSON.parse(canonical) },
      canonicalArguments: canonical,
      reason: gate.reason,
      critical: gate.critical,
      ...(typeof confidence === 'number' ? { confidence } : {}),
      ...(gate.approvalTimeoutMs !== undefined || holdShorter ? { timeoutMs: times.holdMs } : {}),
      holdMs: times.holdMs,
      ...(times.windowMs > times.holdMs ? { answerWithinMs: times.windowMs } : {}),
      ...(gate.approvers === undefined ? {} : { approvers: gate.approvers }),
      ...(gate.quorum === undefined ? {} : { quorum: gate.quorum }),
      ...(gate.requirePasskey ? { requirePasskey: true } : {}),
      ...(gate.editable === undefined ? {} : { editable: gate.editable }),
      ...schemaOf(deps, call.params.name),
      standing: gate.standing,
      grantId,
    },
    { signal: call.signal, onProgress: progressFor(call, gate.approveInChat ? call.chat : undefined) },
  );
}

/** Relays the approval wait as progress, and records the inquiry id once it is known. */
export function progressFor(call: GatedCall, chat?: ChatHook): (update: { inquiryId?: string }) => void {
  return ({ inquiryId }) => {
    if (inquiryId) call.onStage?.({ state: 'awaiting_approval', inquiryId });
    if (inquiryId) chat?.inquiry(inquiryId);
    call.relay?.approval(`waiting for a person to approve "${call.params.name}"`);
  };
}

/**
 * Records a final verdict on the grant and, for an approval, takes the right to run (idempotent
 * calls), consumes the grant with the digest of the call about to be forwarded (the one door to the
 * backend for a gated call) and forwards it. A refusal is the result the agent gets instead.
 */
export async function settleAndRun(
  deps: CallDeps,
  call: GatedCall,
  grantId: string,
  verdict: HumanVerdict,
  audit: Audit,
): Promise<GatedOutcome> {
  const shown = { tool: call.params.name, server: deps.backend.name, inquiryId: verdict.inquiryId };
  const fromVerdict = verdictDetails(verdict);
  const refuse = (reason: Refusal, detail?: string): GatedOutcome => ({
    kind: 'done',
    result: refusalResult(reason, {
      ...shown,
      ...(detail ? { detail } : {}),
      ...(verdict.reason ? { said: verdict.reason } : {}),
    }),
  });
  if (verdict.outcome !== 'approved') {
    const outcome = verdict.outcome === 'pending' ? 'timed_out' : verdict.outcome;
    await deps.store.decideGrant(grantId, 'rejected', deps.clock.now());
    audit(outcome, fromVerdict);
    return refuse(outcome, verdict.detail);
  }
  if (call.claimRun && !(await call.claimRun())) return { kind: 'taken' };
  // An edit binds the grant to the approved call's digest: only that call can use it from now on.
  const { params, edit } = approvedParams(call.params, verdict);
  const digest = digestOf(deps, call.userId, params);
  const decided = await deps.store.decideGrant(
    grantId,
    'approved',
    deps.clock.now(),
    edit ? digest : undefined,
  );
  if (decided !== 'approved') {
    audit('expired', { ...fromVerdict, detail: `grant ${decided}` });
    return refuse('expired');
  }
  const consumed = await deps.store.consumeGrant(grantId, digest, deps.clock.now());
  if (consumed !== 'ok') {
    audit(consumed === 'expired' ? 'expired' : 'failed', { ...fromVerdict, detail: `grant ${consumed}` });
    return refuse(consumed === 'mismatch' ? 'mismatch' : 'expired');
  }
  audit('approved', {
    ...fromVerdict,
    ...(edit
      ? { approvedDigest: digest, changed: edit.changed, approvedArguments: canonicalJson(params.arguments) }
      : {}),
  });
  call.onStage?.({ state: 'in_progress', grantId });
  const result = await forwardOf(deps, call, params)();
  return { kind: 'done', result: edit ? withEditNotice(result, edit) : result };
}

function verdictDetails(verdict: HumanVerdict): Partial<ProxyDecision> {
  return {
    ...(verdict.inquiryId ? { inquiryId: verdict.inquiryId } : {}),
    ...(verdict.deviceName ? { deviceName: verdict.deviceName } : {}),
    ...(verdict.detail ? { detail: verdict.detail } : {}),
    ...(verdict.reason ? { said: verdict.reason } : {}),
  };
}

function recordDecision(
  deps: CallDeps,
  d: {
    call: GatedCall;
    gate: GateDecision;
    digest: string;
    canonical: string;
    startedAt: number;
    outcome: ProxyOutcome;
    extra: Partial<ProxyDecision>;
  },
): void {
  const now = deps.clock.now();
  const decision: ProxyDecision = {
    at: now,
    userId: d.call.userId,
    server: deps.backend.name,
    tool: d.call.params.name,
    digest: d.digest,
    arguments: d.canonical,
    mode: d.gate.mode,
    reason: d.gate.reason,
    outcome: d.outcome,
    ...(d.call.idempotencyKey ? { idempotencyKey: d.call.idempotencyKey } : {}),
    elapsedMs: now - d.startedAt,
    ...d.extra,
  };
  Promise.resolve()
    .then(() => deps.audit.record(decision))
    .catch((error: unknown) => deps.logger.error({ err: error, decision }, 'audit sink failed'));
}
