import { z } from 'zod';
import type { ChatMessage } from './prompt.js';

/** A chat model behind an OpenAI-compatible endpoint. */
export interface ChatModel {
  /** The model name, recorded in the audit log. */
  readonly model: string;
  /** The assistant's reply text. @throws ModelError on a transport, HTTP or shape failure, or abort. */
  complete(messages: ChatMessage[], signal: AbortSignal): Promise<string>;
}

/** Settings of an OpenAI-compatible chat-completions endpoint (`HITL_LLM_*`). */
export interface ChatModelConfig {
  /** Base URL (`https://host/v1`) or the full `.../chat/completions` URL. */
  url: string;
  model: string;
  apiKey?: string;
}

export class ModelError extends Error {
  override readonly name = 'ModelError';
}

const CompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

/** The chat-completions URL for a base URL or a full one. */
export function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/**
 * Talks to an OpenAI-compatible `POST /chat/completions`, asking for a JSON object at temperature 0.
 *
 * @example
 * const model = openAiChatModel({ url: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
 * const text = await model.complete(messages, AbortSignal.timeout(5000));
 */
export function openAiChatModel(config: ChatModelConfig): ChatModel {
  const endpoint = completionsUrl(config.url);
  return {
    model: config.model,
    async complete(messages, signal) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          signal,
          headers: {
            'content-type': 'application/json',
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: config.model,
            messages,
            temperature: 0,
            response_format: { type: 'json_object' },
          }),
        });
      } catch (error) {
        throw new ModelError(
          signal.aborted ? 'the model did not answer in time' : `the model is unreachable: ${String(error)}`,
        );
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new ModelError(`the model endpoint answered HTTP ${response.status}`);
      }
      let json: unknown;
      try {
        json = await response.json();
      } catch {
        throw new ModelError(
          signal.aborted
            ? 'the model did not answer in time'
            : 'the model endpoint sent a body that is not JSON',
        );
      }
      const parsed = CompletionSchema.safeParse(json);
      const content = parsed.success ? parsed.data.choices[0]?.message.content : undefined;
      if (typeof content !== 'string') throw new ModelError('the model endpoint sent no message content');
      return content;
    },
  };
}
