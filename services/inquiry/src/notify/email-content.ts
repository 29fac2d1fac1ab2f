import { type Inquiry, showInvisible } from '@hitl/protocol';
import { escapeHtml } from '../core/html-text.js';

/** One mail: the question, its options, and the answer link; the HTML is built from escaped text only. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** Agent text as a person should read it in a mail: invisible characters made visible. */
const visible = (value: string) => showInvisible(value);

function oneLine(value: string, max: number): string {
  const line = visible(value).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

/** The choices a person can make, as lines. */
function choices(inquiry: Inquiry): string[] {
  if (inquiry.kind === 'approval') return ['approve', 'reject'];
  if (inquiry.options) return inquiry.options.map(visible);
  if (inquiry.questions) return inquiry.questions.map((q) => `${visible(q.prompt)} (${q.kind})`);
  return [];
}

/**
 * The mail for one inquiry: plain text and HTML with the same words, no remote content
 * (no images, no styles from elsewhere), agent text never interpreted as markup, and one link: the
 * answer link.
 */
export function mailFor(inquiry: Inquiry, answerUrl: string): MailContent {
  const who = visible(inquiry.asker.name ?? inquiry.asker.tokenSubject);
  const what = inquiry.kind === 'approval' ? 'Approval needed' : 'A question';
  const subject = `${what} from ${oneLine(who, 60)}: ${oneLine(inquiry.question, 80)}`;
  const until = new Date(inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt).toUTCString();
  const action = inquiry.action
    ? [
        `Action: ${visible(inquiry.action.tool)} on ${visible(inquiry.action.server)}`,
        JSON.stringify(inquiry.action.arguments ?? {}, null, 2),
      ]
    : [];
  const list = choices(inquiry);
  const text = [
    `${what} from ${who}${inquiry.critical ? ' (critical)' : ''}:`,
    '',
    visible(inquiry.question),
    ...(action.length ? ['', ...action] : []),
    ...(list.length ? ['', 'Choices:', ...list.map((c) => `  - ${c}`)] : []),
    '',
    `Answer here (the link works once, until ${until}):`,
    answerUrl,
    '',
    'If you did not expect this, ignore it: nothing happens until someone answers.',
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(what)} from <strong>${escapeHtml(who)}</strong>${inquiry.critical ? ' (critical)' : ''}:</p>`,
    `<blockquote style="white-space:pre-wrap">${escapeHtml(visible(inquiry.question))}</blockquote>`,
    ...(action.length ? [`<pre>${escapeHtml(action.join('\n'))}</pre>`] : []),
    ...(list.length
      ? [`<p>Choices:</p><ul>${list.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>`]
      : []),
    `<p><a href="${escapeHtml(answerUrl)}">Answer</a> (the link works once, until ${escapeHtml(until)})</p>`,
    '<p>If you did not expect this, ignore it: nothing happens until someone answers.</p>',
    '</body></html>',
  ].join('');
  return { subject, text, html };
}
