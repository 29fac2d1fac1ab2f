import { type InquiryResult, InquiryResultSchema, type SendInquiryInput } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** How the assistant reaches the customer: the HITL inquiry service, over MCP. */
export interface InquiryChannel {
  /** The `clarify_user_intent` prompt's text for this request: the rules the assistant follows. */
  instructions(request: string): Promise<string>;
  /**
   * Asks with `send_inquiry` and waits for the reply. Aborting `signal` cancels the question (the SDK
   * sends `notifications/cancelled`); the result then reports how it really ended.
   */
  ask(input: SendInquiryInput, hooks?: AskHooks): Promise<InquiryResult>;
  close(): Promise<void>;
}

export interface AskHooks {
  signal?: AbortSignal;
  /** Called once the service has created the inquiry (first progress notification). */
  onPending?: (inquiryId: string) => void;
}

export interface ChannelOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8787/mcp`. */
  url: string;
  /** An agent token (role `agent`). */
  token: string;
  /** Longest the assistant waits for one reply; keep it above the service tier (default 90 s). */
  maxTotalTimeoutMs?: number;
}

/** How long to wait for a cancellation (or a late answer) to land after the call itself ended. */
const SETTLE_WAIT_MS = 5000;

function readResult(result: CallToolResult): InquiryResult {
  if (result.isError) {
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
    throw new Error(`the inquiry service reported an error: ${text}`);
  }
  const parsed = InquiryResultSchema.safeParse(result.structuredContent);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`unexpected inquiry result: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Connects an MCP client (Streamable HTTP, bearer token) to the inquiry service. */
export async function connectInquiries(options: ChannelOptions): Promise<InquiryChannel> {
  const client = new Client({ name: 'shopping-assistant', version: '0.1.0' });
  const transport = new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
  });
  await client.connect(transport);
  const maxTotalTimeout = options.maxTotalTimeoutMs ?? 90_000;

  const getInquiry = async (inquiryId: string, waitMs: number) =>
    readResult(
      (await client.callTool({ name: 'get_inquiry', arguments: { inquiryId, waitMs } }, undefined, {
        timeout: waitMs + 10_000,
      })) as CallToolResult,
    );

  return {
    async instructions(request) {
      const prompt = await client.getPrompt({ name: 'clarify_user_intent', arguments: { request } });
      return prompt.messages
        .map((m) => (m.content.type === 'text' ? m.content.text : ''))
        .join('\n')
        .trim();
    },
    async ask(input, hooks = {}) {
      let inquiryId: string | undefined;
      try {
        const result = await client.callTool({ name: 'send_inquiry', arguments: input }, undefined, {
          onprogress: (progress) => {
            // The service's first progress notification names the inquiry in `_meta`.
            const id = (progress as { _meta?: { inquiryId?: unknown } })._meta?.inquiryId;
            if (inquiryId === undefined && typeof id === 'string') {
              inquiryId = id;
              hooks.onPending?.(id);
            }
          },
          resetTimeoutOnProgress: true,
          maxTotalTimeout,
          ...(hooks.signal ? { signal: hooks.signal } : {}),
        });
        let outcome = readResult(result as CallToolResult);
        // A draining node may hand the call back unresolved: collect the reply where it lands.
        if (outcome.status === 'pending' && outcome.inquiryId) {
          outcome = await getInquiry(outcome.inquiryId, maxTotalTimeout / 2);
        }
        return outcome;
      } catch (error) {
        // Cut short (our own cancel, or the client's time limit): ask how the question really ended.
        if (inquiryId === undefined) throw error;
        return getInquiry(inquiryId, SETTLE_WAIT_MS);
      }
    },
    close: () => client.close(),
  };
}
