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
  return start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
}

/**
 * A brain backed by an OpenAI-compatible chat model (`HITL_LLM_URL`). It only phrases questions and
 * picks among products the planner already found; any failure falls back to the rule brain.
 */
export function llmBrain(options: LlmOptions): Brain {
  const chat = async (system: string, user: string): Promise<string> => {
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
  };
  const fallback = <T>(what: string, run: () => Promise<T>, otherwise: () => Promise<T>) =>
    run().catch((error: unknown) => {
      options.warn?.(
        `${what} failed (${error instanceof Error ? error.message : String(error)}); using rules`,
      );
      return otherwise();
    });

  return {
    name: `model ${options.model}`,
    phraseQuestion: (input: PhraseInput) =>
      fallback(
        'phrasing a question',
        async () => {
          const system = `${input.instructions}\n\nYou are a friendly shop assistant. Rewrite the draft question for the customer in one short sentence. Keep its meaning; do not list the options. Reply with the question only.`;
          const user = JSON.stringify({
            request: input.request,
            draft: input.question,
            options: input.options,
          });
          return (await chat(system, user)).replace(/^"|"$/g, '').slice(0, 500);
        },
        () => ruleBrain.phraseQuestion(input),
      ),
    pickProducts: (input: PickInput) =>
      fallback(
        'picking products',
        async (): Promise<Picks> => {
          const shortlist = input.ranked.slice(0, 12);
          const system = `You are a shop assistant. From the shortlist, pick the ${input.count} products that best fit the customer's request. Every product on it already fits their size, colour and budget. Reply with JSON only: {"ids": [...], "reason": "..."}.`;
          const user = JSON.stringify({
            request: input.request,
            shortlist: shortlist.map(({ stock: _stock, sold: _sold, ...product }) => product),
          });
          const parsed = PicksSchema.parse(firstJsonObject(await chat(system, user)));
          const products = parsed.ids
            .map((id) => shortlist.find((p) => p.id === id))
            .filter((p) => p !== undefined)
            .slice(0, input.count);
          if (products.length === 0) throw new Error('the model picked nothing from the shortlist');
          return { products, ...(parsed.reason ? { note: parsed.reason } : {}) };
        },
        () => ruleBrain.pickProducts(input),
      ),
  };
}
