import { randomUUID } from 'node:crypto';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HumanVerdict } from '../approval/ask-human.js';
import type { ProxyDecision, ProxyOutcome } from '../audit/audit-sink.js';
import { callDigest, canonicalJson } from '../core/call-digest.js';
import { decideGate, type GateDecision, readConfidence } from '../policy/gate.js';
import type { OperationPatch } from '../store/proxy-store.js';
import type { CallDeps } from './call-deps.js';
import { forwardCall } from './forward.js';
import type { ProgressRelay } from './progress-relay.js';
import { refusalResult } from './results.js';

/** One `tools/call` on its way through the gate. */
export interface GatedCall {
  userId: string;
  params: CallToolRequest['params'];
  signal: AbortSignal;
  relay?: ProgressRelay;
  idempotencyKey?: string;
  /** Told where the call stands, for `get_operation_status` (idempotent calls only). */
  onStage?: (stage: OperationPatch) => void;
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

/**
 * Runs a call through the gate: passes it, or asks the human and forwards it only through a
 * single-use grant bound to the digest of exactly this call. Never forwards on anything but a
 * human "approve" recorded and consumed before the grant's expiry.
 */
export async function runGatedCall(
  deps: CallDeps,
  call: GatedCall,
  gate: GateDecision,
): Promise<CallToolResult> {
  const startedAt = deps.clock.now();
  const digest = digestOf(deps, call.userId, call.params);
  const canonical = canonicalJson(argumentsOf(call.params));
  const audit = (outcome: ProxyOutcome, extra: Partial<ProxyDecision> = {}) =>
    recordDecision(deps, { call, gate, digest, canonical, startedAt, outcome, extra });
  const forward = () =>
    forwardCall(deps.backend, call.params, {
      signal: call.signal,
      timeoutMs: deps.timings.backendTimeoutMs,
      relay: call.relay,
    });

  if (!gate.needsHuman) {
    if (gate.reason === 'mode_yolo') audit('passed');
    call.onStage?.({ state: 'in_progress' });
    return forward();
  }

  const grantId = randomUUID();
  const windowMs = gate.approvalTimeoutMs ?? deps.timings.approvalWindowMs;
  await deps.store.createGrant({
    grantId,
    userId: call.userId,
    digest,
    expiresAt: startedAt + windowMs + deps.timings.grantGraceMs,
  });
  call.onStage?.({ state: 'awaiting_approval', grantId });
  const verdict = await askFor(deps, call, gate, canonical, grantId);
  const refusal = await settleGrant(deps, call, grantId, verdict, audit);
  if (refusal) return refusal;
  call.onStage?.({ state: 'in_progress', grantId });
  return forward();
}

/** Puts the exact call to the caller's human, relaying the wait as progress. */
function askFor(
  deps: CallDeps,
  call: GatedCall,
  gate: GateDecision,
  canonical: string,
  grantId: string,
): Promise<HumanVerdict> {
  const confidence = readConfidence(call.params._meta?.confidence);
  return deps.asker.ask(
    {
      userId: call.userId,
      action: { server: deps.backend.name, tool: call.params.name, arguments: JSON.parse(canonical) },
      canonicalArguments: canonical,
      reason: gate.reason,
      critical: gate.critical,
      ...(typeof confidence === 'number' ? { confidence } : {}),
      ...(gate.approvalTimeoutMs === undefined ? {} : { timeoutMs: gate.approvalTimeoutMs }),
      grantId,
    },
    {
      signal: call.signal,
      onProgress: ({ inquiryId }) => {
        if (inquiryId) call.onStage?.({ state: 'awaiting_approval', inquiryId, grantId });
        call.relay?.approval(`waiting for a person to approve "${call.params.name}"`);
      },
    },
  );
}

/**
 * Records the verdict on the grant and, for an approval, consumes the grant with the digest of the
 * call about to be forwarded: the one door to the backend for a gated call. Returns the refusal the
 * agent gets, or null when the call may go.
 */
async function settleGrant(
  deps: CallDeps,
  call: GatedCall,
  grantId: string,
  verdict: HumanVerdict,
  audit: (outcome: ProxyOutcome, extra?: Partial<ProxyDecision>) => void,
): Promise<CallToolResult | null> {
  const shown = { tool: call.params.name, server: deps.backend.name, inquiryId: verdict.inquiryId };
  const fromVerdict = verdictDetails(verdict);
  if (verdict.outcome !== 'approved') {
    await deps.store.decideGrant(grantId, 'rejected', deps.clock.now());
    audit(verdict.outcome, fromVerdict);
    return refusalResult(verdict.outcome, { ...shown, detail: verdict.detail });
  }
  const decided = await deps.store.decideGrant(grantId, 'approved', deps.clock.now());
  if (decided !== 'approved') {
    audit('expired', { ...fromVerdict, detail: `grant ${decided}` });
    return refusalResult('expired', shown);
  }
  const digest = digestOf(deps, call.userId, call.params);
  const consumed = await deps.store.consumeGrant(grantId, digest, deps.clock.now());
  if (consumed !== 'ok') {
    audit(consumed === 'expired' ? 'expired' : 'failed', { ...fromVerdict, detail: `grant ${consumed}` });
    return refusalResult(consumed === 'mismatch' ? 'mismatch' : 'expired', shown);
  }
  audit('approved', fromVerdict);
  return null;
}

function verdictDetails(verdict: HumanVerdict): Partial<ProxyDecision> {
  return {
    ...(verdict.inquiryId ? { inquiryId: verdict.inquiryId } : {}),
    ...(verdict.deviceName ? { deviceName: verdict.deviceName } : {}),
    ...(verdict.detail ? { detail: verdict.detail } : {}),
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
