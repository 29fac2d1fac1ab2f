import { type InquiryResult, InquiryResultSchema, type SendInquiryInput } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

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
  /** Patient mode: a wait ended with the question still open; the assistant checks again. */
  onStillOpen?: (inquiryId: string, checks: number) => void;
}

export interface ChannelOptions {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8787/mcp`. */
  url: string;
  /** An agent token (role `agent`). */
  token: string;
  /** Longest the assistant waits for one reply; keep it above the service tier (default 90 s). */
  maxTotalTimeoutMs?: number;
  /**
   * Patient mode: no call is held longer than {@link PATIENT_CALL_LIMIT_MS} (like a client that cuts
   * calls at 60 s); a `pending` reply is collected with `get_inquiry` waits of `waitMs` until it ends.
   */
  patient?: { waitMs: number };
}

/** The longest one call may take in patient mode, like the stock clients that cut calls at 60 s. */
export const PATIENT_CALL_LIMIT_MS = 60_000;
/** How long each patient `get_inquiry` waits (well below the 60 s cut; the node caps it at its hold). */
export const PATIENT_WAIT_MS = 45_000;

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

/**
 * Asks and collects the answer the patient way: `send_inquiry` (which returns `pending` at the end of
 * its hold when the answer window is longer), then `get_inquiry` with `waitMs` in a loop until the
 * question is answered, refused, timed out at the window's end, or cancelled. No call is held longer
 * than {@link PATIENT_CALL_LIMIT_MS}, and none resets its limit on progress, so a client that cuts
 * calls at 60 s gets the answer the same way. Every wait ends well before the cut (the hold is the
 * service tier, 50 s; each `waitMs` 45 s): a cut call is not harmless, because the SDK sends
 * `notifications/cancelled` when its time limit ends, and that cancels the question. Should one be
 * cut anyway (a slow network), `get_inquiry` then reports how the question really ended.
 */
async function askPatiently(
  client: Client,
  input: SendInquiryInput,
  hooks: AskHooks,
  waitMs: number,
): Promise<InquiryResult> {
  const signal = hooks.signal;
  const callOptions = { timeout: PATIENT_CALL_LIMIT_MS, ...(signal ? { signal } : {}) };
  let inquiryId: string | undefined;
  const call = async (name: string, args: Record<string, unknown>) =>
    readResult(
      (await client.callTool({ name, arguments: args }, undefined, {
        ...callOptions,
        onprogress: (progress) => {
          const id = (progress as { _meta?: { inquiryId?: unknown } })._meta?.inquiryId;
          if (inquiryId === undefined && typeof id === 'string') {
            inquiryId = id;
            hooks.onPending?.(id);
          }
        },
      })) as CallToolResult,
    );
  let outcome: InquiryResult | undefined;
  try {
    outcome = await call('send_inquiry', input);
  } catch (error) {
    if (signal?.aborted || !isCut(error)) throw error;
  }
  // Found by its idempotency key when the first call was cut before it named the inquiry.
  const target = () => (inquiryId ? { inquiryId } : { idempotencyKey: input.idempotencyKey ?? '' });
  if (outcome?.inquiryId && inquiryId === undefined) {
    inquiryId = outcome.inquiryId;
    hooks.onPending?.(outcome.inquiryId);
  }
  let checks = 0;
  while (outcome === undefined || outcome.status === 'pending') {
    signal?.throwIfAborted();
    if (outcome && inquiryId) hooks.onStillOpen?.(inquiryId, ++checks);
    try {
      outcome = await call('get_inquiry', { ...target(), waitMs });
    } catch (error) {
      if (signal?.aborted || !isCut(error)) throw error;
      outcome = undefined;
    }
  }
  return outcome;
}

/** The client's own time limit cut the call (it also cancelled the question it held). */
function isCut(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
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
      if (options.patient) return askPatiently(client, input, hooks, options.patient.waitMs);
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
