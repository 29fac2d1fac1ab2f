/*
 * The names our Slack messages and modals give their controls, and how a click's `value` is read
 * back. Pure. Every control carries the inquiry id in its value, so a click needs nothing but the
 * payload; each id is checked against the store before anything happens.
 */

/** `action_id`s of message controls. Option buttons are `hitl.option.<index>` (unique in a message). */
export const ACTIONS = {
  approve: 'hitl.approve',
  /** Opens the modal that asks for a reason, then rejects. */
  reject: 'hitl.reject',
  /** Opens the modal with the free-text or form question. */
  answer: 'hitl.answer',
  /** Opens the modal that asks for a reason, then refuses the question. */
  decline: 'hitl.decline',
  /** The select menu of a question with more than five options. */
  select: 'hitl.select',
  /**
   * A link button to the inquiry's page (`/i/<id>`), where a passkey approval is decided: Slack
   * still reports its click, which changes nothing.
   */
  openPage: 'hitl.open',
} as const;

const OPTION_PREFIX = 'hitl.option.';

/** The `action_id` of the option button at `index`. */
export const optionAction = (index: number) => `${OPTION_PREFIX}${index}`;

/** `callback_id`s of our modals: what a submission does. */
export const MODALS = { reject: 'hitl.reject', decline: 'hitl.decline', answer: 'hitl.answer' } as const;
export type ModalKind = keyof typeof MODALS;

/** The block and action ids of the modal inputs: `f.<question index>` for a form, one for the rest. */
export const INPUTS = { reason: 'hitl.reason', answer: 'hitl.answer' } as const;
export const fieldBlock = (index: number) => `f.${index}`;

/** A parsed click of a message control. */
export type MessageAction =
  | { kind: 'approve' | 'reject' | 'answer' | 'decline' | 'openPage'; inquiryId: string }
  | { kind: 'option'; inquiryId: string; index: number };

const INQUIRY_ID = /^[0-9A-Za-z]{10,40}$/;

/** `<inquiryId>:<index>`: an option button's or select option's value. */
export const optionValue = (inquiryId: string, index: number) => `${inquiryId}:${index}`;

/**
 * What a click means, from its `action_id` and value (a button's `value`, a select's chosen option
 * `value`); undefined for an action id we never send or a value that is not ours.
 */
export function parseAction(actionId: string, value: string | undefined): MessageAction | undefined {
  if (value === undefined) return undefined;
  const simple = (Object.entries(ACTIONS) as [keyof typeof ACTIONS, string][]).find(
    ([, id]) => id === actionId,
  );
  if (simple && simple[0] !== 'select') {
    return INQUIRY_ID.test(value) ? { kind: simple[0], inquiryId: value } : undefined;
  }
  if (actionId !== ACTIONS.select && !actionId.startsWith(OPTION_PREFIX)) return undefined;
  const match = /^([0-9A-Za-z]{10,40}):(\d{1,3})$/.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  const index = Number(match[2]);
  if (actionId !== ACTIONS.select && actionId !== optionAction(index)) return undefined;
  return { kind: 'option', inquiryId: match[1], index };
}
