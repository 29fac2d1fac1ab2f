/** Default wording, written as if to a colleague: no talk of tools or models. */
export const DEFAULT_DESCRIPTIONS = {
  send_inquiry:
    'Ask the person you are working for and wait for their reply. Do this whenever their intent is unclear, ' +
    'a detail is missing, or before any action they have not clearly approved: never guess, and never ask in ' +
    'plain text. They can answer from any device they have open. If nobody answers in time, or they would ' +
    'rather not say, the reply tells you so; treat that as "no answer", never as a yes. If they may need ' +
    'longer (hours or days), give answerWithinMs: when the reply says "pending", the question is still open ' +
    'for them; collect the answer with get_inquiry.',
  get_inquiry:
    'Check on a question you asked the person earlier (by its inquiryId or your idempotencyKey) and collect ' +
    'their reply. Use it when the reply was "pending" or your wait was cut short: pass waitMs to wait for ' +
    'the reply, and call again while it says "pending"; that never means yes.',
} as const;

export type DescribedTool = keyof typeof DEFAULT_DESCRIPTIONS;

const MAX_DESCRIPTION_CHARS = 2000;

/**
 * Per-connection wording from the MCP URL's query: `description` (send_inquiry), `get_description`,
 * and `lang` (a BCP 47 tag: the person is asked in that language).
 */
export function descriptionsFor(query: URLSearchParams): Record<DescribedTool, string> {
  const pick = (name: string, fallback: string) => {
    const value = query.get(name)?.trim();
    return value ? value.slice(0, MAX_DESCRIPTION_CHARS) : fallback;
  };
  const language = languageName(query.get('lang'));
  const suffix = language ? ` Write your questions in ${language}.` : '';
  return {
    send_inquiry: pick('description', DEFAULT_DESCRIPTIONS.send_inquiry) + suffix,
    get_inquiry: pick('get_description', DEFAULT_DESCRIPTIONS.get_inquiry),
  };
}

function languageName(tag: string | null): string | undefined {
  if (!tag) return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (!canonical) return undefined;
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(canonical);
  } catch {
    return undefined;
  }
}

export const CLARIFY_PROMPT = {
  name: 'clarify_user_intent',
  description: 'How to act when what the person wants is not clear.',
  text:
    'If the intent of the request is unclear, or a detail you need is missing, you must call send_inquiry to ' +
    'ask the person; never ask in plain text and never guess. Ask one clear question (or one short form with ' +
    'sensible defaults), wait for the reply, then continue. If the reply says nobody answered or the person ' +
    'declined, proceed only with what is safe and say what you assumed.',
} as const;
