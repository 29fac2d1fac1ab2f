import type { FieldValue, FormQuestion, Inquiry } from '@hitl/protocol';
import type { InputBlock, InputBlockElement, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { questionBlocks } from './message-parts.js';
import { fieldBlock, INPUTS, MODALS, type ModalKind } from './slack-actions.js';
import { plain, plainLine } from './slack-text.js';

/*
 * The modals a click opens (pure): a reason for a reject or a refusal, and a free-text or form
 * question with one input per field. `private_metadata` names the inquiry (and where the click came
 * from, for a reply only the clicker sees).
 */

/** The most characters a reason may have (the same bound every door holds). */
export const REASON_CHARS = 1000;
/** Slack's own bound on a plain_text_input. */
export const SLACK_INPUT_CHARS = 3000;

/** What a modal carries back in its submission. */
export interface ModalMeta {
  inquiryId: string;
  /** The channel of the message clicked (for an ephemeral reply). */
  channel?: string;
}

const meta = (m: ModalMeta) => JSON.stringify({ i: m.inquiryId, ...(m.channel ? { c: m.channel } : {}) });

const TITLES: Record<ModalKind, { title: string; submit: string }> = {
  reject: { title: 'Reject', submit: 'Reject' },
  decline: { title: 'Decline', submit: 'Decline' },
  answer: { title: 'Answer', submit: 'Send answer' },
};

function modal(kind: ModalKind, m: ModalMeta, blocks: KnownBlock[]): ModalView {
  return {
    type: 'modal',
    callback_id: MODALS[kind],
    title: plain(TITLES[kind].title),
    submit: plain(TITLES[kind].submit),
    close: plain('Cancel'),
    private_metadata: meta(m),
    blocks,
  };
}

/** Reject an approval, or decline a question, with an optional reason (at most 1,000 characters). */
export function reasonModal(kind: 'reject' | 'decline', inquiry: Inquiry, m: ModalMeta): ModalView {
  const input: InputBlock = {
    type: 'input',
    block_id: INPUTS.reason,
    optional: true,
    label: plain(
      kind === 'reject' ? 'Why reject? (the agent reads this)' : 'Why decline? (the agent reads this)',
    ),
    element: {
      type: 'plain_text_input',
      action_id: INPUTS.reason,
      multiline: true,
      max_length: REASON_CHARS,
    },
  };
  return modal(kind, m, [...questionBlocks(inquiry), input]);
}

/** The question with one input: the free text, or one per form field (defaults filled in). */
export function answerModal(inquiry: Inquiry, m: ModalMeta): ModalView {
  const inputs: InputBlock[] = inquiry.questions
    ? inquiry.questions.map((q, i) => fieldInput(q, i, prefill(inquiry, q)))
    : [textInput(inquiry)];
  return modal('answer', m, [...questionBlocks(inquiry), ...inputs]);
}

function textInput(inquiry: Inquiry): InputBlock {
  const initial = inquiry.defaultAnswer ?? inquiry.suggestedAnswer;
  return {
    type: 'input',
    block_id: INPUTS.answer,
    label: plain('Your answer'),
    element: {
      type: 'plain_text_input',
      action_id: INPUTS.answer,
      multiline: true,
      max_length: SLACK_INPUT_CHARS,
      ...(typeof initial === 'string' && initial.length <= SLACK_INPUT_CHARS
        ? { initial_value: initial }
        : {}),
    },
  };
}

/** A field's starting value: the question's default, else the inquiry's default or suggested answer. */
function prefill(inquiry: Inquiry, q: FormQuestion): FieldValue | undefined {
  const from = (answer: Inquiry['defaultAnswer']) =>
    answer && typeof answer === 'object' && Object.hasOwn(answer, q.id) ? answer[q.id] : undefined;
  return q.default ?? from(inquiry.defaultAnswer) ?? from(inquiry.suggestedAnswer);
}

const optionOf = (label: string, i: number): PlainTextOption => ({
  text: plain(plainLine(label, 75)),
  value: String(i),
});

function fieldInput(q: FormQuestion, index: number, initial: FieldValue | undefined): InputBlock {
  return {
    type: 'input',
    block_id: fieldBlock(index),
    optional: q.required !== true,
    label: plain(plainLine(q.prompt, 2000)),
    element: fieldElement(q, initial),
  };
}

function fieldElement(q: FormQuestion, initial: FieldValue | undefined): InputBlockElement {
  const options = (q.options ?? []).map(optionOf);
  const chosen = (value: unknown) => options.find((_, i) => q.options?.[i] === value);
  switch (q.kind) {
    case 'number':
      return {
        type: 'number_input',
        action_id: 'v',
        is_decimal_allowed: true,
        ...(typeof initial === 'number' ? { initial_value: String(initial) } : {}),
      };
    case 'boolean': {
      const yes = { text: plain('Yes'), value: 'true' };
      const no = { text: plain('No'), value: 'false' };
      const start = initial === true ? yes : initial === false ? no : undefined;
      return {
        type: 'radio_buttons',
        action_id: 'v',
        options: [yes, no],
        ...(start ? { initial_option: start } : {}),
      };
    }
    case 'choice': {
      const start = chosen(initial);
      return {
        type: 'static_select',
        action_id: 'v',
        placeholder: plain('Choose…'),
        options,
        ...(start ? { initial_option: start } : {}),
      };
    }
    case 'multi': {
      const start = Array.isArray(initial)
        ? options.filter((_, i) => initial.includes(q.options?.[i] ?? ''))
        : [];
      return {
        type: 'multi_static_select',
        action_id: 'v',
        placeholder: plain('Choose…'),
        options,
        ...(start.length ? { initial_options: start } : {}),
      };
    }
    default:
      return {
        type: 'plain_text_input',
        action_id: 'v',
        multiline: true,
        max_length: SLACK_INPUT_CHARS,
        ...(typeof initial === 'string' && initial.length <= SLACK_INPUT_CHARS
          ? { initial_value: initial }
          : {}),
      };
  }
}
