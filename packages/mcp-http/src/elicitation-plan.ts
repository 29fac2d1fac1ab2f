import { type FormQuestion, type Inquiry, LIMITS, showInvisible } from '@hitl/protocol';
import type { ElicitRequestFormParams, PrimitiveSchemaDefinition } from '@modelcontextprotocol/sdk/types.js';

/*
 * What an inquiry becomes in the agent's chat (pure). A form elicitation carries only flat schemas
 * (string, number, integer, boolean, enum, and from protocol 2025-11-25 an array of enum); what
 * cannot travel that way, and every approval that must be decided outside the model's reach, goes
 * to the web terminal's page for that inquiry (URL mode) when the client takes URLs, else nowhere.
 */

/** What the client declared and the protocol it speaks, as the session keeps them. */
export interface ChatClient {
  protocolVersion: string;
  /** Form mode declared (`elicitation: {}` or `elicitation.form`). */
  form: boolean;
  /** `elicitation.url` declared. */
  url: boolean;
}

export type ElicitationPlan =
  | { mode: 'form'; message: string; requestedSchema: ElicitRequestFormParams['requestedSchema'] }
  | { mode: 'url'; message: string; url: string }
  | { mode: 'none'; why: string };

/** The longest argument text shown in a form's message; a longer one goes to the page. */
const MAX_ACTION_CHARS = 4000;

/** Protocol versions whose elicitation schemas allow a multi-select (an array of enum). */
const MULTI_SELECT_VERSIONS = new Set(['2025-11-25']);

/** The reason an approval may carry, in characters. */
export const REASON_CHARS = 1000;

/**
 * The elicitation for `inquiry` in a chat whose client is `client`; `pageUrl` is the web terminal's
 * page for this one inquiry (`<HITL_PUBLIC_URL>/i/<inquiryId>`).
 */
export function planElicitation(inquiry: Inquiry, client: ChatClient, pageUrl: string): ElicitationPlan {
  const message = messageOf(inquiry);
  const form = formOf(inquiry, client);
  if (typeof form !== 'string' && client.form) return { mode: 'form', message, requestedSchema: form };
  const why = typeof form === 'string' ? form : 'This chat shows no forms.';
  if (client.url)
    return { mode: 'url', message: `${message}\n\n${why} Open the page to answer.`, url: pageUrl };
  return { mode: 'none', why };
}

/** Who asks, then the question (and an approval's exact call), invisible characters shown as escapes. */
export function messageOf(inquiry: Inquiry): string {
  const who = inquiry.asker.name ?? inquiry.asker.tokenSubject;
  const lines = [`${showInvisible(who)} asks:`, '', showInvisible(inquiry.question)];
  const { action } = inquiry;
  if (action) {
    lines.push('', `Approve ${showInvisible(action.tool)} on ${showInvisible(action.server)} with:`);
    lines.push(showInvisible(JSON.stringify(action.arguments, null, 2)));
  }
  return lines.join('\n');
}

type RequestedSchema = ElicitRequestFormParams['requestedSchema'];

/**
 * A critical approval, or one that needs a passkey, is decided on the page. A quorum approval is
 * marked critical by the node itself (no machine ever approves it), not by its asker: in the chat it
 * is a form, and each person's chat answer is that person's one vote.
 */
function decidedOnThePage(inquiry: Inquiry): boolean {
  if ((inquiry as { requirePasskey?: boolean }).requirePasskey === true) return true;
  return inquiry.critical && inquiry.quorum === undefined;
}

/** The flat form for the inquiry, or why there is none. */
function formOf(inquiry: Inquiry, client: ChatClient): RequestedSchema | string {
  if (inquiry.kind === 'approval') {
    if (decidedOnThePage(inquiry)) return 'This approval is decided on the web page, outside the chat.';
    if (inquiry.action && JSON.stringify(inquiry.action.arguments).length > MAX_ACTION_CHARS)
      return 'The arguments are too long to show here.';
    return {
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
        reason: { type: 'string', title: 'Reason (optional)', maxLength: REASON_CHARS },
      },
      required: ['decision'],
    };
  }
  if (inquiry.questions) return questionsForm(inquiry, inquiry.questions, client);
  const prefill = typeof inquiry.defaultAnswer === 'string' ? inquiry.defaultAnswer : inquiry.suggestedAnswer;
  const answer: PrimitiveSchemaDefinition = inquiry.options
    ? { type: 'string', title: 'Your answer', enum: inquiry.options }
    : { type: 'string', title: 'Your answer', minLength: 1, maxLength: LIMITS.answerChars };
  if (typeof prefill === 'string' && (!inquiry.options || inquiry.options.includes(prefill)))
    (answer as { default?: string }).default = prefill;
  return { type: 'object', properties: { answer }, required: ['answer'] };
}

function questionsForm(
  inquiry: Inquiry,
  questions: FormQuestion[],
  client: ChatClient,
): RequestedSchema | string {
  const prefill = typeof inquiry.defaultAnswer === 'object' ? inquiry.defaultAnswer : undefined;
  const properties: Record<string, PrimitiveSchemaDefinition> = {};
  for (const q of questions) {
    if (q.kind === 'multi' && !MULTI_SELECT_VERSIONS.has(client.protocolVersion))
      return `A multiple choice question needs protocol 2025-11-25 in the chat; this client speaks ${client.protocolVersion}.`;
    properties[q.id] = fieldOf(q, q.default ?? prefill?.[q.id]);
  }
  const required = questions.filter((q) => q.required).map((q) => q.id);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function fieldOf(q: FormQuestion, prefill: unknown): PrimitiveSchemaDefinition {
  const title = showInvisible(q.prompt);
  const text = typeof prefill === 'string' ? { default: prefill } : {};
  switch (q.kind) {
    case 'text':
      return { type: 'string', title, maxLength: LIMITS.answerChars, ...text };
    case 'number':
      return { type: 'number', title, ...(typeof prefill === 'number' ? { default: prefill } : {}) };
    case 'boolean':
      return { type: 'boolean', title, ...(typeof prefill === 'boolean' ? { default: prefill } : {}) };
    case 'choice':
      return { type: 'string', title, enum: q.options ?? [], ...text };
    case 'multi':
      return {
        type: 'array',
        title,
        items: { type: 'string', enum: q.options ?? [] },
        ...(Array.isArray(prefill)
          ? { default: prefill.filter((v): v is string => typeof v === 'string') }
          : {}),
      };
  }
}
