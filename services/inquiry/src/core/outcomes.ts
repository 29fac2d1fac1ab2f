import type { AllowFor, InquiryResponse, Resolution, ResolvedBy, WebAuthnAssertion } from '@hitl/protocol';

export interface PresetTexts {
  timeout: string;
  refusal: string;
}

export interface DeviceRef {
  /** The person whose device (or REST token, or answer link) it is. */
  userId?: string;
  deviceId?: string;
  deviceName?: string;
  /** The passkey (credential id) whose assertion approved it, checked before the ending was made. */
  passkey?: string;
}

/** What ends an inquiry, before any fallback strategy runs. */
export type Ending =
  | ({ type: 'answer'; response: InquiryResponse; device: DeviceRef } & AnswerAdditions)
  | { type: 'refusal'; device: DeviceRef; reason?: string }
  | { type: 'device-timer'; device: DeviceRef }
  | { type: 'service-timer' }
  | { type: 'cancel'; ops?: OpsRef };

/** What a person may add to an answer: a reason, edited arguments, a standing approval. */
export interface AnswerAdditions {
  reason?: string;
  /** New values for editable arguments, as the person sent them (checked by `settle`). */
  arguments?: Record<string, unknown>;
  allowFor?: AllowFor;
  /** Set by `settle` once the edit is checked: the arguments approved and the names changed. */
  approved?: { arguments: Record<string, unknown>; changed: string[] };
  /** A passkey approval's assertion, checked by `settle` (against the approved arguments) before anything is written. */
  webauthn?: WebAuthnAssertion;
}

/** The operator behind an ops cancel: the ops token's subject (and name, when it has one). */
export interface OpsRef {
  subject: string;
  name?: string;
}

function deviceFields(device: DeviceRef): Partial<ResolvedBy> {
  const fields: Partial<ResolvedBy> = {};
  if (device.userId) fields.userId = device.userId;
  if (device.deviceId) fields.deviceId = device.deviceId;
  if (device.deviceName) fields.deviceName = device.deviceName;
  return fields;
}

/**
 * The resolution an ending writes. With no fallback strategy (or `preset_text`) a timeout or refusal
 * carries the preset text, and `resolvedBy` says plainly that no human answered.
 */
export function resolutionFor(ending: Ending, texts: PresetTexts, now: number): Resolution {
  switch (ending.type) {
    case 'answer':
      return {
        status: 'answered',
        answer: ending.response,
        resolvedBy: { kind: 'human', ...deviceFields(ending.device) },
        resolvedAt: now,
        ...(ending.reason ? { reason: ending.reason } : {}),
        ...(ending.approved?.changed.length ? ending.approved : {}),
      };
    case 'refusal':
      return {
        status: 'refused',
        answer: texts.refusal,
        resolvedBy: { kind: 'human', ...deviceFields(ending.device), strategy: 'preset_text' },
        resolvedAt: now,
        ...(ending.reason ? { reason: ending.reason } : {}),
      };
    case 'device-timer':
      return {
        status: 'timed_out',
        answer: texts.timeout,
        resolvedBy: { kind: 'device-timer', ...deviceFields(ending.device), strategy: 'preset_text' },
        resolvedAt: now,
      };
    case 'service-timer':
      return {
        status: 'timed_out',
        answer: texts.timeout,
        resolvedBy: { kind: 'service-timer', strategy: 'preset_text' },
        resolvedAt: now,
      };
    case 'cancel':
      if (ending.ops) {
        const { subject, name } = ending.ops;
        const who = name && name !== subject ? `${name} (${subject})` : subject;
        return {
          status: 'cancelled',
          resolvedBy: { kind: 'ops', rationale: `cancelled by ops: ${who}` },
          resolvedAt: now,
        };
      }
      return { status: 'cancelled', resolvedBy: { kind: 'agent' }, resolvedAt: now };
  }
}

/** The endings a fallback strategy may follow, and the trigger each one names. */
export type FallbackEnding = Extract<Ending, { type: 'refusal' | 'device-timer' | 'service-timer' }>;

/** The trigger of an ending that may call for a fallback, or undefined (an answer, a cancel). */
export function fallbackTrigger(ending: Ending): 'refusal' | 'device-timer' | 'service-timer' | undefined {
  return ending.type === 'refusal' || ending.type === 'device-timer' || ending.type === 'service-timer'
    ? ending.type
    : undefined;
}

/** What a machine decided, as the resolution needs it. */
export interface MachineDecision {
  strategy: NonNullable<ResolvedBy['strategy']>;
  answer?: InquiryResponse;
  rationale: string;
}

/**
 * The resolution a fallback decision writes: the status still says what ended the wait (refused or
 * timed out), `resolvedBy` says a machine decided, which strategy, why, and on what trigger.
 */
export function decisionResolution(
  ending: FallbackEnding,
  decision: MachineDecision,
  now: number,
): Resolution {
  return {
    status: ending.type === 'refusal' ? 'refused' : 'timed_out',
    ...(decision.answer !== undefined ? { answer: decision.answer } : {}),
    resolvedBy: {
      kind: 'decision-agent',
      strategy: decision.strategy,
      rationale: decision.rationale,
      trigger: ending.type,
    },
    resolvedAt: now,
  };
}
