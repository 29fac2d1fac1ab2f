import { z } from 'zod';
import type { Brain, PhraseInput, PickInput, Picks } from './brain.js';
import { ruleBrain } from './brain.js';

export interface LlmOptions {
  /** An OpenAI-compatible base URL (`…/v1`) or the full `…/chat/completions` URL. */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Where to report a failed call before falling back to the rules (default: nowhere). */
  warn?: (message: string) => void;
}

const ChatReplySchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

const PicksSchema = z.object({ ids: z.array(z.string()).min(1), reason: z.string().max(500).optional() });

function endpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/chat/completions') ? base : `${base}/chat/completions`;
}

/** The first JSON object in a reply (models sometimes wrap it in prose or a code fence). */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  try {
    return start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
  } catch {
    return undefined;
  }
}

type Chat = (system: string, user: string) => Promise<string>;

/** One chat completion: the reply's text, or an error naming what went wrong. */
async function complete(options: LlmOptions, system: string, user: string): Promise<string> {
  const response = await fetch(endpoint(options.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: options.model,
      temperature: 0,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
  });
  if (!response.ok) throw new Error(`model endpoint answered HTTP ${response.status}`);
  const content = ChatReplySchema.parse(await response.json()).choices[0]?.message.content?.trim();
  if (!content) throw new Error('model gave an empty reply');
  return content;
}

async function phrase(chat: Chat, input: PhraseInput): Promise<string> {
  const system = `${input.instructions}\n\nYou are a friendly shop assistant. Rewrite the draft question for the customer in one short sentence. Keep its meaning; do not list the options. Reply with the question only.`;
  const user = JSON.stringify({ request: input.request, draft: input.question, options: input.options });
  return (await chat(system, user)).replace(/^"|"$/g, '').slice(0, 500);
}

async function pick(chat: Chat, input: PickInput): Promise<Picks> {
  const shortlist = input.ranked.slice(0, 12);
  const system = `You are a shop assistant. From the shortlist, pick the ${input.count} products that best fit the customer's request. Every product on it already fits their size, colour and budget. Reply with JSON only: {"ids": [...], "reason": "..."}.`;
  const user = JSON.stringify({
    request: input.request,
    shortlist: shortlist.map(({ stock: _stock, sold: _sold, ...product }) => product),
  });
  const parsed = PicksSchema.safeParse(firstJsonObject(await chat(system, user)));
  if (!parsed.success) throw new Error('the model did not reply with {"ids": [...]}');
  // Only products from the shortlist, each once: the model chooses, it cannot invent or stretch the facts.
  const products = [...new Set(parsed.data.ids)]
    .map((id) => shortlist.find((p) => p.id === id))
    .filter((p) => p !== undefined)
    .slice(0, input.count);
  if (products.length === 0) throw new Error('the model picked nothing from the shortlist');
  return { products, ...(parsed.data.reason ? { note: parsed.data.reason } : {}) };
}

/**
 * A brain backed by an OpenAI-compatible chat model (`HITL_LLM_URL`). It only phrases questions and
 * picks among products the planner already found; any failure falls back to the rule brain.
 */
export function llmBrain(options: LlmOptions): Brain {
  const chat: Chat = (system, user) => complete(options, system, user);
  const orRules = <T>(what: string, run: Promise<T>, rules: () => Promise<T>) =>
    run.catch((error: unknown) => {
      options.warn?.(
        `${what} failed (${error instanceof Error ? error.message : String(error)}); using rules`,
      );
      return rules();
    });
  return {
    name: `model ${options.model}`,
    phraseQuestion: (input) =>
      orRules('phrasing a question', phrase(chat, input), () => ruleBrain.phraseQuestion(input)),
    pickProducts: (input) =>
      orRules('picking products', pick(chat, input), () => ruleBrain.pickProducts(input)),
  };
}
