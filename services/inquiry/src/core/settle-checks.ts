import { HitlError, type Inquiry, responseProblem } from '@hitl/protocol';
import type { PasskeyService } from '../passkeys/passkey-service.js';
import { checkAnswerAdditions } from './answer-additions.js';
import { deviceTimeoutAllowed } from './deadlines.js';
import type { Ending } from './outcomes.js';
import type { StandingGrants } from './standing-grants.js';

type Answer = Extract<Ending, { type: 'answer' }>;

/** The longest standing approval when the node sets none (`HITL_MAX_STANDING_MS`): 24 h. */
export const DEFAULT_MAX_STANDING_MS = 24 * 60 * 60_000;

/** What the answer checks read of the node. */
export interface AnswerCheckDeps {
  /** `HITL_MAX_STANDING_MS`; absent: {@link DEFAULT_MAX_STANDING_MS}. */
  maxStandingMs?: number;
  /** Checks passkey approvals; without it a `requirePasskey` approval cannot be approved. */
  passkeys?: Pick<PasskeyService, 'verifyApproval'>;
  /** Where an approve with `allowFor` makes its standing approval; without it `allowFor` is refused. */
  standing?: StandingGrants;
}

/**
 * The checks a person's answer passes before anything is written (a refused answer leaves the
 * inquiry pending): the response fits the question; an edit and an `allowFor` fit the approval and
 * the node's limits; the asker has room for one more standing approval; a passkey approval carries a
 * valid assertion. Returns the answer with what the checks found (the approved arguments, the passkey).
 * @throws HitlError `invalid_input` naming the field, `passkey_required`, or the standing store's refusal.
 */
export async function checkAnswer(inquiry: Inquiry, answer: Answer, deps: AnswerCheckDeps): Promise<Answer> {
  const problem = responseProblem(inquiry, answer.response);
  if (problem) throw new HitlError('invalid_input', `response: ${problem}`);
  const checked = checkAnswerAdditions(inquiry, answer, {
    maxStandingMs: deps.maxStandingMs ?? DEFAULT_MAX_STANDING_MS,
  });
  if (checked.allowFor && !deps.standing) {
    throw new HitlError('invalid_input', 'allowFor: this service keeps no standing approvals');
  }
  await deps.standing?.checkRoom(inquiry, checked);
  return passkeyGate(inquiry, checked, deps.passkeys);
}

/**
 * An approve of a `requirePasskey` inquiry counts only with a valid assertion from one of the
 * approver's passkeys over the arguments approved (after any edit), checked before anything is
 * written; the answer then names the passkey. No standing approval is made from one.
 * @throws HitlError `passkey_required` (the inquiry stays pending), `invalid_input` (`allowFor`)
 */
async function passkeyGate(
  inquiry: Inquiry,
  answer: Answer,
  passkeys: AnswerCheckDeps['passkeys'],
): Promise<Answer> {
  if (!inquiry.requirePasskey || answer.response !== 'approve') return answer;
  if (answer.allowFor) {
    throw new HitlError(
      'invalid_input',
      'allowFor: an approval that needs a passkey cannot be allowed for a while',
    );
  }
  if (!answer.webauthn || !passkeys || !answer.device.userId) {
    throw new HitlError(
      'passkey_required',
      `this approval needs your passkey: get options at POST /api/inquiries/${inquiry.inquiryId}/passkey-options and answer with webauthn`,
    );
  }
  const approved = answer.approved?.arguments;
  const passkey = await passkeys.verifyApproval(inquiry, answer.device.userId, answer.webauthn, approved);
  return { ...answer, device: { ...answer.device, passkey } };
}

/**
 * A device's timer may end an inquiry only once its device deadline has passed, never one with an
 * answer window, and never before its planned escalation.
 * @throws HitlError `too_early`
 */
export function checkDeviceTimer(inquiry: Inquiry, now: number): void {
  if (pendingEscalation(inquiry)) {
    throw new HitlError('too_early', 'this question escalates first: no device timer ends it before that');
  }
  if (!deviceTimeoutAllowed(inquiry.deadlines, now)) {
    throw new HitlError(
      'too_early',
      inquiry.deadlines.answerBy === undefined
        ? `the device deadline is ${inquiry.deadlines.deviceAt - now} ms away`
        : 'this question has an answer window: no device timer ends it',
    );
  }
}

/** True while an inquiry's planned escalation has not happened. */
function pendingEscalation(inquiry: Inquiry): boolean {
  return inquiry.escalation !== undefined && inquiry.escalation.escalatedAt === undefined;
}
