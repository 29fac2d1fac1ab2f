import type { PendingInquiry } from '@hitl/client';
import { type AnswerExtras, editableNames, LIMITS, sameJson, standingProblem } from '@hitl/protocol';
import { plain } from './text.js';

/** "Approve and allow the same for a while": the length `hitl answer` offers. */
export const STANDING_MINUTES = 15;

/** What an approval step did with one line: lines to say, edits so far, and what to send once decided. */
export interface ApprovalResult {
  say: string[];
  /** The edit step to go to (an index into the editable names), when the person typed `e`. */
  edit?: number;
  send?: { response: 'approve' | 'reject'; extras: AnswerExtras };
}

/** The names the person may edit on this approval. */
export function editable(inquiry: PendingInquiry): string[] {
  return editableNames(inquiry.editable, inquiry.action);
}

/** What to type at an approval. */
export function approvalIntro(inquiry: PendingInquiry, edits: Record<string, unknown>): string[] {
  const lines = ['Type approve or reject (a / r). A reason the agent reads may follow: r not the prod db'];
  if (editable(inquiry).length > 0) {
    lines.push(`e edits the arguments first (you may change: ${editable(inquiry).map(plain).join(', ')})`);
  }
  if (Object.keys(edits).length > 0) {
    lines.push(`Your edits (sent with approve): ${plain(JSON.stringify(edits))}`);
  }
  if (standingProblem(inquiry) === null) {
    lines.push(
      `a ${STANDING_MINUTES} approves and allows the same for ${STANDING_MINUTES} minutes (no asking until then)`,
    );
  }
  return lines;
}

/** A reason typed after the word, checked against the limit. */
function reasonOf(rest: string): { reason?: string; problem?: string } {
  const reason = rest.trim();
  if (reason.length > LIMITS.reasonChars)
    return { problem: `a reason is at most ${LIMITS.reasonChars} characters` };
  return reason ? { reason } : {};
}

/** One line at an approval: `a`, `a 15`, `r [reason]`, `e`. */
export function submitApproval(
  inquiry: PendingInquiry,
  edits: Record<string, unknown>,
  line: string,
): ApprovalResult {
  const [word = '', ...rest] = line.trim().split(/\s+/);
  const tail = line.trim().slice(word.length);
  switch (word.toLowerCase()) {
    case 'a':
    case 'approve': {
      const minutes = rest[0];
      if (minutes !== undefined && minutes !== String(STANDING_MINUTES)) {
        return { say: [`! after approve, only ${STANDING_MINUTES} (minutes) may follow`] };
      }
      if (minutes !== undefined && standingProblem(inquiry) !== null) {
        return { say: [`! ${standingProblem(inquiry)}`] };
      }
      const extras: AnswerExtras = {
        ...(Object.keys(edits).length > 0 ? { arguments: edits } : {}),
        ...(minutes !== undefined ? { allowFor: { minutes: STANDING_MINUTES } } : {}),
      };
      return { say: [], send: { response: 'approve', extras } };
    }
    case 'r':
    case 'reject': {
      const { reason, problem } = reasonOf(tail);
      if (problem) return { say: [`! ${problem}`] };
      return { say: [], send: { response: 'reject', extras: reason ? { reason } : {} } };
    }
    case 'e':
    case 'edit':
      if (editable(inquiry).length === 0)
        return { say: ['! this approval does not let you edit its arguments'] };
      return { say: [], edit: 0 };
    default:
      return {
        say: [`! type approve or reject (a / r)${editable(inquiry).length > 0 ? ', or e to edit' : ''}`],
      };
  }
}

/** The prompt lines for editing argument `index`. */
export function editIntro(inquiry: PendingInquiry, edits: Record<string, unknown>, index: number): string[] {
  const names = editable(inquiry);
  const name = names[index] ?? '';
  const now = Object.hasOwn(edits, name) ? edits[name] : inquiry.action?.arguments[name];
  return [
    `(${index + 1}/${names.length}) ${plain(name)}: now ${plain(JSON.stringify(now) ?? 'unset')}`,
    '    Enter keeps it; type a new value (JSON for numbers, true/false, lists and objects; text as it is)',
  ];
}

/** The value typed for an argument: JSON when it parses to a non-string, else the text itself. */
function typedValue(text: string, before: unknown): unknown {
  if (typeof before === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One line while editing argument `index`: the edits after it, and the next index (none: done). */
export function submitEdit(
  inquiry: PendingInquiry,
  edits: Record<string, unknown>,
  index: number,
  line: string,
): { edits: Record<string, unknown>; next?: number } {
  const names = editable(inquiry);
  const name = names[index];
  const next = index + 1 < names.length ? index + 1 : undefined;
  if (name === undefined || line.trim() === '') return { edits, ...(next !== undefined ? { next } : {}) };
  const asked = inquiry.action?.arguments[name];
  const value = typedValue(line.trim(), asked);
  const changed = { ...edits };
  if (sameJson(value, asked)) delete changed[name];
  else changed[name] = value;
  return { edits: changed, ...(next !== undefined ? { next } : {}) };
}
