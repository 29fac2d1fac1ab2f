import { type Inquiry, quorumProgress } from '@hitl/protocol';
import type { ContextBlock, KnownBlock, SectionBlock } from '@slack/types';
import { mrkdwn, SLACK_TEXT_CHARS, slackChunks, slackLine } from './slack-text.js';

/*
 * The pieces every Slack message of an inquiry is made of (pure): who asks and why, the question, the
 * action an approval gates, the votes of a quorum, the escalation.
 */

/** What a message needs beyond the inquiry: people's names from the directory. */
export interface MessageContext {
  /** A person's name as the directory gives it (their user id when it gives none). */
  nameOf(userId: string): string;
  /** A message to one person only: a link that answers as them in the browser (GET shows, POST answers). */
  answerUrl?: string;
  /** The inquiry's page in the web terminal (`/i/<id>`): where a passkey approval is decided. */
  pageUrl?: string;
}

/** Longest code block of arguments (Slack's limit is 3000 characters per section). */
const ARGUMENTS_CHARS = SLACK_TEXT_CHARS - 8;

export function section(text: string): SectionBlock {
  return { type: 'section', text: mrkdwn(text) };
}

export function context(lines: string[]): ContextBlock {
  return { type: 'context', elements: lines.slice(0, 10).map((line) => mrkdwn(line)) };
}

/** `*Approval needed* from *robot* for team *ops*`. */
export function headline(inquiry: Inquiry, what: string): string {
  const who = slackLine(inquiry.asker.name ?? inquiry.asker.tokenSubject, 200);
  const team = inquiry.team ? ` for team *${slackLine(inquiry.team, 200)}*` : '';
  return `*${what}* from *${who}*${team}`;
}

/** The question as sections of at most 3000 characters (at most three; a longer one is cut with `…`). */
export function questionBlocks(inquiry: Inquiry): SectionBlock[] {
  return slackChunks(inquiry.question).map((chunk) => section(chunk));
}

/**
 * The call an approval gates: tool, server and the exact arguments as JSON in a code block (cut with
 * `…` past 3000 characters). A run of three backticks in the arguments would close the block: it is
 * shown with a space inside (`` `` ` ``).
 */
export function actionBlocks(inquiry: Inquiry): SectionBlock[] {
  const { action } = inquiry;
  if (!action) return [];
  const json = JSON.stringify(action.arguments ?? {}, null, 2).replace(/```/g, '`` `');
  const [args = ''] = slackChunks(json, ARGUMENTS_CHARS, 1);
  return [
    section(`*Action:* \`${slackLine(action.tool, 200)}\` on \`${slackLine(action.server, 200)}\``),
    section(`\`\`\`${args}\`\`\``),
  ];
}

/** Why it is asked: the proxy's reason (`context.why`) or the context text, critical, confidence. */
export function whyLines(inquiry: Inquiry): string[] {
  const lines: string[] = [];
  const ctx = inquiry.context;
  const why = typeof ctx === 'string' ? ctx : typeof ctx?.why === 'string' ? ctx.why : undefined;
  if (why) lines.push(`*Why:* ${slackLine(why, 1000)}`);
  if (inquiry.critical) lines.push(':warning: *Critical*');
  const confidence =
    inquiry.confidence ??
    (typeof ctx === 'object' && typeof ctx.confidence === 'number' ? ctx.confidence : undefined);
  if (confidence !== undefined && confidence >= 0 && confidence <= 1) {
    lines.push(`*Agent's confidence:* ${Math.round(confidence * 100)} %`);
  }
  return lines;
}

/** A quorum approval's count and who voted how, in the order they voted. */
export function voteLines(inquiry: Inquiry, ctx: MessageContext): string[] {
  const progress = quorumProgress(inquiry);
  if (!progress) return [];
  const votes = (inquiry.votes ?? []).map(
    (vote) =>
      `${slackLine(ctx.nameOf(vote.userId), 100)} ${vote.vote === 'approve' ? 'approved' : 'rejected'}`,
  );
  const count = `*Approvals:* ${progress.approvals} of ${progress.needed} (one reject vetoes)`;
  return [votes.length ? `${count}: ${votes.join(', ')}` : count];
}

/** Who an escalation added, once it happened. */
export function escalationLines(inquiry: Inquiry, ctx: MessageContext): string[] {
  const escalation = inquiry.escalation;
  if (escalation?.escalatedAt === undefined) return [];
  const whom = escalation.team
    ? `team *${slackLine(escalation.team, 200)}*`
    : escalation.users.map((user) => slackLine(ctx.nameOf(user), 100)).join(', ');
  return [`:arrow_up: *Escalated:* ${whom} asked too`];
}

/** The answer a person gave, as lines (a form: one per field). */
export function answerLines(inquiry: Inquiry): string[] {
  const { answer } = inquiry;
  if (answer === undefined || inquiry.kind === 'approval') return [];
  if (typeof answer === 'string')
    return [`*Answer:* ${slackChunks(answer, SLACK_TEXT_CHARS - 20, 1)[0] ?? ''}`];
  const prompts = new Map((inquiry.questions ?? []).map((q) => [q.id, q.prompt]));
  return Object.entries(answer).map(([id, value]) => {
    const label = slackLine(prompts.get(id) ?? id, 200);
    const shown = Array.isArray(value) ? value.join(', ') : String(value);
    return `*${label}:* ${slackLine(shown, 500)}`;
  });
}

/** Blocks that carry lines of text: one context block per ten lines, none for none. */
export function contextBlocks(lines: string[]): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < lines.length; i += 10) blocks.push(context(lines.slice(i, i + 10)));
  return blocks;
}
