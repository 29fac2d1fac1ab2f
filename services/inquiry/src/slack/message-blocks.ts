import type { Inquiry } from '@hitl/protocol';
import type { ActionsBlock, Button, KnownBlock, PlainTextOption } from '@slack/types';
import {
  actionBlocks,
  answerLines,
  contextBlocks,
  escalationLines,
  headline,
  type MessageContext,
  questionBlocks,
  section,
  voteLines,
  whyLines,
} from './message-parts.js';
import { ACTIONS, optionAction, optionValue } from './slack-actions.js';
import { plain, plainLine, slackDate, slackLine, slackLink } from './slack-text.js';

/*
 * The Slack message of one inquiry, as Block Kit (pure). While it is pending: who asks and why, the
 * question, the action, the deadline and the controls. Once it ended: who decided, on which device,
 * and what, with the controls gone.
 */

export interface SlackMessageContent {
  /** The notification and screen-reader text (Slack shows it where blocks cannot be shown). */
  text: string;
  blocks: KnownBlock[];
}

/** Buttons up to this many options; a select menu past it. */
export const MAX_OPTION_BUTTONS = 5;
/** Slack's limit on a button's and an option's text. */
const LABEL_CHARS = 75;

const titleOf = (inquiry: Inquiry) => (inquiry.kind === 'approval' ? 'Approval needed' : 'Question');

/** The message as it should look now: pending with its controls, or ended. */
export function inquiryMessage(inquiry: Inquiry, ctx: MessageContext): SlackMessageContent {
  return inquiry.status === 'pending' ? pendingMessage(inquiry, ctx) : endedMessage(inquiry, ctx);
}

function pendingMessage(inquiry: Inquiry, ctx: MessageContext): SlackMessageContent {
  const deadline = inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt;
  const lines = [
    ...whyLines(inquiry),
    ...voteLines(inquiry, ctx),
    ...escalationLines(inquiry, ctx),
    `*Answer by* ${slackDate(deadline)}`,
  ];
  const blocks: KnownBlock[] = [
    section(headline(inquiry, titleOf(inquiry))),
    ...questionBlocks(inquiry),
    ...actionBlocks(inquiry),
    ...contextBlocks(lines),
    controls(inquiry, ctx),
  ];
  if (ctx.answerUrl) {
    blocks.push(
      ...contextBlocks([`Or answer in the browser: ${slackLink(ctx.answerUrl, 'open the answer page')}`]),
    );
  }
  const text = `${titleOf(inquiry)} from ${slackLine(inquiry.asker.name ?? inquiry.asker.tokenSubject, 100)}: ${slackLine(inquiry.question, 200)}`;
  return { text, blocks };
}

function endedMessage(inquiry: Inquiry, ctx: MessageContext): SlackMessageContent {
  const outcome = outcomeLine(inquiry, ctx);
  const reason = reasonOf(inquiry);
  const lines = [
    ...(inquiry.status === 'answered' ? answerLines(inquiry) : []),
    ...(reason ? [`*Reason:* ${slackLine(reason, 1000)}`] : []),
    ...voteLines(inquiry, ctx),
    ...escalationLines(inquiry, ctx),
  ];
  const blocks: KnownBlock[] = [
    section(outcome),
    section(headline(inquiry, titleOf(inquiry))),
    ...questionBlocks(inquiry),
    ...actionBlocks(inquiry),
    ...contextBlocks(lines),
  ];
  // The notification text: the outcome without its emoji, bold marks and date.
  const plainOutcome = outcome
    .replace(/^:[a-z_]+: /, '')
    .replace(/ · <!date[^>]*>$/, '')
    .replace(/\*/g, '');
  return { text: `${plainOutcome}: ${slackLine(inquiry.question, 200)}`, blocks };
}

/** Who ended it, how and when: `:white_check_mark: *Approved* by *Ann* on Slack · <date>`. */
export function outcomeLine(inquiry: Inquiry, ctx: MessageContext): string {
  const by = inquiry.resolvedBy;
  const at = inquiry.resolvedAt === undefined ? '' : ` · ${slackDate(inquiry.resolvedAt)}`;
  const person = by?.userId
    ? ` by *${slackLine(ctx.nameOf(by.userId), 100)}*${by.deviceName ? ` on ${slackLine(by.deviceName, 100)}` : ''}`
    : '';
  const machine =
    by?.kind === 'decision-agent' ? ` (the fallback decided: ${by.strategy ?? 'fail_closed'})` : '';
  switch (inquiry.status) {
    case 'answered': {
      if (inquiry.kind !== 'approval') return `:white_check_mark: *Answered*${person}${at}`;
      const approved = inquiry.answer === 'approve';
      return `${approved ? ':white_check_mark: *Approved*' : ':no_entry: *Rejected*'}${person}${at}`;
    }
    case 'refused':
      return `:no_entry_sign: *Declined*${person}${machine}${at}`;
    case 'timed_out':
      return `:hourglass: *Timed out*: nobody answered in time${machine}${at}`;
    case 'cancelled':
      return by?.kind === 'ops'
        ? `:heavy_multiplication_x: *Cancelled* (${slackLine(by.rationale ?? 'by ops', 200)})${at}`
        : `:heavy_multiplication_x: *Cancelled*: the agent withdrew the question${at}`;
    default:
      return `*${inquiry.status}*`;
  }
}

/** The reason a person gave with a reject or a refusal, when the inquiry carries one. */
function reasonOf(inquiry: Inquiry): string | undefined {
  const reason = (inquiry as { reason?: unknown }).reason;
  return typeof reason === 'string' && reason ? reason : undefined;
}

/** The controls of a pending message: approve / reject, options, or a button that opens the modal. */
function controls(inquiry: Inquiry, ctx: MessageContext): ActionsBlock {
  const id = inquiry.inquiryId;
  const button = (text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button => ({
    type: 'button',
    text: plain(text),
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  });
  const decline = button('Decline…', ACTIONS.decline, id);
  let elements: ActionsBlock['elements'];
  if (inquiry.kind === 'approval' && inquiry.requirePasskey && ctx.pageUrl) {
    // Only the person's passkey approves it: Slack hands over to the inquiry's page (a reject needs none).
    elements = [
      { ...button('Approve with passkey…', ACTIONS.openPage, id, 'primary'), url: ctx.pageUrl },
      button('Reject…', ACTIONS.reject, id, 'danger'),
    ];
  } else if (inquiry.kind === 'approval') {
    elements = [
      button('Approve', ACTIONS.approve, id, 'primary'),
      button('Reject…', ACTIONS.reject, id, 'danger'),
    ];
  } else if (inquiry.options && !inquiry.questions) {
    const labels = inquiry.options.map((option) => plainLine(option, LABEL_CHARS));
    const choices =
      labels.length <= MAX_OPTION_BUTTONS
        ? labels.map((label, i) => button(label, optionAction(i), optionValue(id, i)))
        : [
            {
              type: 'static_select' as const,
              action_id: ACTIONS.select,
              placeholder: plain('Choose…'),
              options: labels.map(
                (label, i): PlainTextOption => ({ text: plain(label), value: optionValue(id, i) }),
              ),
            },
          ];
    elements = [...choices, decline];
  } else {
    elements = [button('Answer…', ACTIONS.answer, id, 'primary'), decline];
  }
  return { type: 'actions', block_id: 'hitl.actions', elements };
}
