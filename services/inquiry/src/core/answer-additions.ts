import {
  applyEdit,
  editableNames,
  HitlError,
  type Inquiry,
  matchesArguments,
  sameJson,
  standingProblem,
} from '@hitl/protocol';
import { argumentsProblem } from './input-schema.js';
import type { Ending } from './outcomes.js';

type Answer = Extract<Ending, { type: 'answer' }>;

/** The node's limits on what an answer may add. */
export interface AdditionLimits {
  /** `HITL_MAX_STANDING_MS`: the longest standing approval. */
  maxStandingMs: number;
}

function refuse(message: string): never {
  throw new HitlError('invalid_input', message);
}

/**
 * Checks what a person added to an answer (edited arguments, a standing approval) against the
 * inquiry, and returns the answer with the approved arguments and the names changed (`approved`).
 * Pure but for the schema check; nothing is written, so a refused answer leaves the inquiry pending.
 *
 * Edits apply to editable names only and must fit the tool's `action.inputSchema`. A quorum approval
 * takes no edits: every approver approves the same arguments, the ones asked.
 * @throws HitlError `invalid_input` naming the field.
 */
export function checkAnswerAdditions(inquiry: Inquiry, answer: Answer, limits: AdditionLimits): Answer {
  if (answer.arguments === undefined && answer.allowFor === undefined) return answer;
  const approving = inquiry.kind === 'approval' && answer.response === 'approve';
  const field = answer.arguments !== undefined ? 'arguments' : 'allowFor';
  if (!approving || !inquiry.action) {
    refuse(`${field}: only an approval of an action, answered "approve", can carry ${field}`);
  }
  const asked = inquiry.action.arguments;
  let approved = { arguments: asked, changed: [] as string[] };
  if (answer.arguments !== undefined) {
    if (inquiry.editable === undefined)
      refuse('arguments: this approval does not let you edit its arguments');
    if (inquiry.quorum !== undefined) {
      refuse(
        'arguments: an approval that needs several people is approved as asked (every approver approves the same arguments); reject it with a reason instead',
      );
    }
    const edit = applyEdit(asked, answer.arguments, editableNames(inquiry.editable, inquiry.action));
    if (!edit.ok) refuse(edit.problem);
    const schema = inquiry.action.inputSchema;
    const problem = schema ? argumentsProblem(schema, edit.arguments) : null;
    if (problem) refuse(problem);
    approved = { arguments: edit.arguments, changed: edit.changed };
  }
  if (answer.allowFor) {
    const blocked = standingProblem(inquiry);
    if (blocked) refuse(`allowFor: ${blocked}`);
    const maxMinutes = Math.floor(limits.maxStandingMs / 60_000);
    if (answer.allowFor.minutes > maxMinutes) {
      refuse(`allowFor.minutes: must be at most ${maxMinutes} (this service's longest standing approval)`);
    }
    const match = answer.allowFor.match;
    if (match && !matchesArguments(match, approved.arguments)) {
      const name = Object.keys(match).find((n) => !sameJson(match[n], approved.arguments[n]));
      refuse(`allowFor.match.${name}: must be the value this approval approves`);
    }
  }
  return { ...answer, approved };
}
