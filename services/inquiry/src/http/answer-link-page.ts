import {
  type FormQuestion,
  type Inquiry,
  type InquiryResponse,
  LIMITS,
  quorumProgress,
} from '@hitl/protocol';
import { escapeHtml, visibleHtml } from '../core/html-text.js';

/*
 * The answer-link page: one inquiry and its form, rendered on the server with no script
 * at all. Agent text is untrusted (§5): it is shown as plain text (invisible and bidi characters made
 * visible, then HTML-escaped), never as markup, and nothing on the page loads from elsewhere.
 */

/** Text for HTML content or a quoted attribute: visible escapes first, then entity escapes. */
const text = visibleHtml;

/**
 * An option as a form control's `value`: the real option, so the form posts what the agent offered;
 * anything beyond printable ASCII as a character reference, so the page's source holds no invisible
 * character (the label beside it shows the visible escape).
 */
const optionValue = (option: string) =>
  escapeHtml(option).replace(/[^\x20-\x7e]/gu, (ch) => `&#x${(ch.codePointAt(0) ?? 0).toString(16)};`);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#111}
.q{white-space:pre-wrap;border-left:4px solid #36c;padding:.5rem 1rem;background:#f4f7fb}
fieldset{border:1px solid #ccc;margin:1rem 0;padding:.5rem 1rem}label{display:block;margin:.25rem 0}
textarea,input[type=text],input[type=number]{width:100%;box-sizing:border-box;font:inherit;padding:.4rem}
button{font:inherit;padding:.5rem 1rem;margin:.5rem .5rem 0 0}.meta{color:#555;font-size:.9rem}
.error{color:#a00;font-weight:600}`;

/** A whole page; `nonce` admits the one inline style block the CSP allows. */
export function page(title: string, body: string, nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${text(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

const when = (ms: number) => new Date(ms).toUTCString();

/** The page's one heading while an inquiry waits. */
const askingHeading = (inquiry: Inquiry) =>
  `${inquiry.kind === 'approval' ? 'Approval needed' : 'A question for you'}${inquiry.critical ? ' (critical)' : ''}`;

/** What every page of one inquiry shows under its heading: who asked, and the question. */
function questionBlock(inquiry: Inquiry): string {
  const who = inquiry.asker.name ?? inquiry.asker.tokenSubject;
  const action = inquiry.action
    ? `<p class="meta">Action: <strong>${text(inquiry.action.tool)}</strong> on ${text(inquiry.action.server)}</p>
<pre class="q">${text(JSON.stringify(inquiry.action.arguments ?? {}, null, 2))}</pre>`
    : '';
  return `<p class="meta">Asked by ${text(who)}</p><div class="q">${text(inquiry.question)}</div>${action}`;
}

function prefill(inquiry: Inquiry): InquiryResponse | undefined {
  return inquiry.defaultAnswer ?? inquiry.suggestedAnswer;
}

function radios(name: string, options: readonly string[], checked: unknown): string {
  return options
    .map(
      (o) =>
        `<label><input type="radio" name="${name}" value="${optionValue(o)}"${o === checked ? ' checked' : ''}> ${text(o)}</label>`,
    )
    .join('');
}

function field(q: FormQuestion, value: unknown): string {
  const name = `q.${q.id}`;
  // A lone input is named by its legend (a screen reader, and a test, find it by the prompt).
  const legendId = text(`prompt-${q.id}`);
  const legend = `<legend id="${legendId}">${text(q.prompt)}${q.required ? ' (required)' : ''}</legend>`;
  switch (q.kind) {
    case 'text':
      return `<fieldset>${legend}<input type="text" name="${name}" aria-labelledby="${legendId}" value="${text(typeof value === 'string' ? value : '')}"></fieldset>`;
    case 'number':
      return `<fieldset>${legend}<input type="number" step="any" name="${name}" aria-labelledby="${legendId}" value="${typeof value === 'number' ? value : ''}"></fieldset>`;
    case 'boolean':
      return `<fieldset>${legend}${radios(name, ['yes', 'no'], value === true ? 'yes' : value === false ? 'no' : undefined)}</fieldset>`;
    case 'choice':
      return `<fieldset>${legend}${radios(name, q.options ?? [], value)}</fieldset>`;
    case 'multi': {
      const chosen = Array.isArray(value) ? value : [];
      const boxes = (q.options ?? []).map(
        (o) =>
          `<label><input type="checkbox" name="${name}" value="${optionValue(o)}"${chosen.includes(o) ? ' checked' : ''}> ${text(o)}</label>`,
      );
      return `<fieldset>${legend}${boxes.join('')}</fieldset>`;
    }
  }
}

/** The inputs and buttons that answer this inquiry. */
function answerControls(inquiry: Inquiry): string {
  const value = prefill(inquiry);
  const refuse = '<button type="submit" name="action" value="refuse">I would rather not answer</button>';
  if (inquiry.kind === 'approval') {
    return `${reasonInput('Why (optional, the agent reads it)')}<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="reject">Reject</button>`;
  }
  let inputs: string;
  if (inquiry.questions) {
    const values = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    inputs = inquiry.questions.map((q) => field(q, values[q.id] ?? q.default)).join('');
  } else if (inquiry.options) {
    inputs = `<fieldset><legend>Your answer</legend>${radios('response', inquiry.options, value)}</fieldset>`;
  } else {
    const prefilled = typeof value === 'string' ? value : '';
    inputs = `<label for="response">Your answer</label><textarea id="response" name="response" rows="4">${text(prefilled)}</textarea>`;
  }
  return `${inputs}<button type="submit" name="action" value="answer">Send answer</button>${reasonInput('If you would rather not answer: why (optional, the agent reads it)')}${refuse}`;
}

/** The optional reason a person gives with a reject or a refusal. */
function reasonInput(label: string): string {
  return `<label for="reason">${text(label)}</label><textarea id="reason" name="reason" rows="2" maxlength="${LIMITS.reasonChars}"></textarea>`;
}

/** A pending inquiry with its form; `problem` repeats why the last answer was not taken. */
export function answerPage(inquiry: Inquiry, nonce: string, problem?: string): string {
  const until = inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt;
  const error = problem ? `<p class="error" role="alert">${text(problem)}</p>` : '';
  return page(
    'Answer a question',
    `<h1>${text(askingHeading(inquiry))}</h1>${questionBlock(inquiry)}${error}<form method="post">${answerControls(inquiry)}</form>
<p class="meta">This link works once and until ${when(until)}.</p>`,
    nonce,
  );
}

/** A response as a person reads it: the text, or each form field's prompt and value. */
function responseHtml(inquiry: Inquiry, response: InquiryResponse): string {
  if (typeof response === 'string') return `<p>Answer: <strong>${text(response)}</strong></p>`;
  const rows = (inquiry.questions ?? [])
    .filter((q) => response[q.id] !== undefined)
    .map((q) => {
      const value = response[q.id];
      const shown = Array.isArray(value)
        ? value.join(', ')
        : typeof value === 'boolean'
          ? value
            ? 'yes'
            : 'no'
          : String(value);
      return `<dt>${text(q.prompt)}</dt><dd>${text(shown)}</dd>`;
    });
  return `<p>Answer:</p><dl>${rows.join('')}</dl>`;
}

/** A quorum approval's votes: who voted what, from where, when. */
function votesHtml(inquiry: Inquiry): string {
  if (!inquiry.votes?.length) return '';
  const items = inquiry.votes.map(
    (v) =>
      `<li>${text(v.userId)} ${v.vote === 'approve' ? 'approved' : 'rejected'}${v.deviceName ? ` from ${text(v.deviceName)}` : ''} on ${when(v.at)}</li>`,
  );
  return `<p>Votes:</p><ul>${items.join('')}</ul>`;
}

/** An inquiry that already ended: what was answered, who ended it and when; one heading. */
export function endedPage(inquiry: Inquiry, nonce: string, heading = 'This question is closed'): string {
  const by = inquiry.resolvedBy;
  const person = by?.userId ? ` by ${text(by.userId)}` : '';
  const who =
    by?.kind === 'human'
      ? `${inquiry.status === 'refused' ? 'declined' : 'answered'} from ${text(by.deviceName ?? 'a device')}${person}`
      : by?.kind === 'agent'
        ? 'cancelled by the agent that asked'
        : by?.kind === 'ops'
          ? 'cancelled by an operator'
          : by?.kind === 'decision-agent'
            ? 'decided by a fallback (no person answered)'
            : 'timed out (no person answered)';
  const at = inquiry.resolvedAt === undefined ? '' : ` on ${when(inquiry.resolvedAt)}`;
  const answer = inquiry.answer === undefined ? '' : responseHtml(inquiry, inquiry.answer);
  const progress = quorumProgress(inquiry);
  const outcome =
    inquiry.status === 'pending'
      ? `<p>It still waits: ${progress ? `${progress.approvals} of ${progress.needed} approvals so far` : 'not answered yet'}.</p>`
      : `<p>It was ${who}${at} (${text(inquiry.status)}).</p>`;
  return page(
    heading,
    `<h1>${text(heading)}</h1>${questionBlock(inquiry)}${answer}${votesHtml(inquiry)}${outcome}`,
    nonce,
  );
}

/** Thanks, after this link's answer won. */
export function thanksPage(inquiry: Inquiry, nonce: string): string {
  const progress = quorumProgress(inquiry);
  const what =
    inquiry.status === 'refused'
      ? 'You declined to answer.'
      : inquiry.status === 'pending' && progress
        ? `Your vote is counted: ${progress.approvals} of ${progress.needed} approvals so far.`
        : 'Your answer was sent.';
  return page('Thank you', `<h1>Thank you</h1><p>${what} You can close this page.</p>`, nonce);
}

/** A link that cannot be used: expired, unknown, or not a link at all. */
export function messagePage(title: string, message: string, nonce: string): string {
  return page(title, `<h1>${text(title)}</h1><p>${text(message)}</p>`, nonce);
}

/** A genuine link that was withdrawn (its person's or its inquiry's links revoked). */
export function withdrawnPage(nonce: string): string {
  return messagePage(
    'This link was withdrawn',
    'This answer link was revoked. Answer from one of your devices, or ask for a new link.',
    nonce,
  );
}

/** Titles of the refusals a link's door can meet before its own checks (rendered as a page). */
const REFUSAL_TITLES: Partial<Record<number, string>> = {
  403: 'This request was refused',
  413: 'Too much to send',
  429: 'Too many tries',
  503: 'Not available right now',
};

/** A refusal of the door itself (Host / Origin, body size, rate, store away), as a page, not JSON. */
export function refusalPage(status: number, message: string, nonce: string): string {
  return messagePage(REFUSAL_TITLES[status] ?? 'Something went wrong', message, nonce);
}
