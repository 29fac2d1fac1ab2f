import { formatAnswerBy, type PendingInquiry, type ResolvedNotice } from '@hitl/client';
import { countdown, indented, numbered, plain, preview } from './text.js';

/** Who asked, as the person knows them: the agent token's name, else its subject. */
export const askerOf = (inquiry: PendingInquiry): string =>
  plain(inquiry.asker.name ?? inquiry.asker.tokenSubject);

/** Time left to this device's (skew-corrected) deadline. */
export const timeLeft = (inquiry: PendingInquiry, now: number): string => {
  const ms = inquiry.localDeviceAt - now;
  return ms > 0 ? `${countdown(ms)} left` : 'time is up';
};

/**
 * Who asked, for whom, as the web card says it: the agent (its token's name; "an agent" when the
 * token has none) and the person it acts for (the token's subject).
 */
export const askedByOf = (inquiry: PendingInquiry): string =>
  `${inquiry.asker.name ? plain(inquiry.asker.name) : 'an agent'} for ${plain(inquiry.asker.tokenSubject)}`;

function titleOf(inquiry: PendingInquiry): string {
  const who = askedByOf(inquiry);
  const title = inquiry.kind === 'approval' ? `Approval needed (asked by ${who})` : `Question from ${who}`;
  return inquiry.critical ? `${title} - CRITICAL` : title;
}

function actionLines(inquiry: PendingInquiry): string[] {
  const { action } = inquiry;
  if (!action) return ['  (the agent did not say which action this approves)'];
  return [
    `  backend:   ${plain(action.server)}`,
    `  tool:      ${plain(action.tool)}`,
    '  arguments:',
    ...indented(JSON.stringify(action.arguments, null, 2), '    '),
  ];
}

/** A quorum approval: how many approved so far, of how many needed, and who voted what. */
function quorumLines(inquiry: PendingInquiry): string[] {
  if (inquiry.quorum === undefined) return [];
  const votes = inquiry.votes ?? [];
  const approvals = votes.filter((v) => v.vote === 'approve').length;
  return [
    `  ${approvals} of ${inquiry.quorum} approvals (${inquiry.quorum} different people must approve; one reject stops it)`,
    ...votes.map((v) => `    ${plain(v.userId)} ${v.vote === 'approve' ? 'approved' : 'rejected'}`),
  ];
}

function contextLines(inquiry: PendingInquiry): string[] {
  const { context } = inquiry;
  if (context === undefined) return [];
  const text = typeof context === 'string' ? context : JSON.stringify(context, null, 2);
  return ['  context:', ...indented(text, '    ')];
}

/**
 * For a question with an answer window (`deadlines.answerBy`): until when it may be answered, in this
 * computer's own time ("answer by Thu 14:05"); nothing for one that ends with the hold.
 */
export const answerByText = (inquiry: PendingInquiry, now: number): string | undefined =>
  inquiry.deadlines.answerBy === undefined
    ? undefined
    : `answer by ${formatAnswerBy(inquiry.localDeviceAt, now)}`;

/** An inquiry as printed when it opens: title, time left, question, then options / action / context. */
export function inquiryLines(inquiry: PendingInquiry, now: number): string[] {
  const until = answerByText(inquiry, now);
  const title = `-- ${titleOf(inquiry)} -- ${timeLeft(inquiry, now)}${until ? `, ${until}` : ''}`;
  return [
    '',
    title,
    ...indented(inquiry.question),
    ...(inquiry.options && !inquiry.questions ? numbered(inquiry.options, '    ') : []),
    ...(inquiry.kind === 'approval' ? [...actionLines(inquiry), ...quorumLines(inquiry)] : []),
    ...contextLines(inquiry),
  ];
}

/** One line per pending inquiry, numbered for `/open N`; the open one is marked. */
export function listLines(inquiries: readonly PendingInquiry[], openId: string | undefined, now: number) {
  if (inquiries.length === 0) return ['No questions waiting.'];
  return inquiries.map((inquiry, i) => {
    const mark = inquiry.inquiryId === openId ? '*' : ' ';
    return `${mark}${i + 1}) [${timeLeft(inquiry, now)}] ${askerOf(inquiry)}: ${preview(inquiry.question)}`;
  });
}

/**
 * How an inquiry ended, from this device's point of view: "answered on this device",
 * "answered elsewhere (on Phone)", "time ran out on this device", "cancelled by the agent"...
 */
export function endingText(
  notice: Pick<ResolvedNotice, 'status' | 'resolvedBy' | 'byThisDevice'>,
  /** The user the asking agent acts for: a person answering for themselves is not named again. */
  askerUserId?: string,
): string {
  const by = notice.resolvedBy;
  const here = notice.byThisDevice;
  const who = by?.userId && by.userId !== askerUserId ? ` by ${plain(by.userId)}` : '';
  const where = here ? 'on this device' : `elsewhere (on ${plain(by?.deviceName ?? 'another device')}${who})`;
  if (by?.kind === 'decision-agent') return `decided by the fallback (${by.strategy ?? 'agent'})`;
  switch (notice.status) {
    case 'answered':
      return by?.kind === 'human' ? `answered ${where}` : 'answered';
    case 'refused':
      return `declined ${where}`;
    case 'timed_out':
      if (by?.kind === 'device-timer') return here ? 'time ran out on this device' : `time ran out ${where}`;
      return 'time ran out (the service stopped waiting)';
    case 'cancelled':
      return by?.kind === 'ops' ? 'cancelled by an operator' : 'cancelled by the agent';
    case 'pending':
      return 'still waiting';
  }
}
