import { InquiryResultSchema } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ApprovalRequest, AskHuman, AskOptions, HumanVerdict } from './ask-human.js';
import { approvalQuestion } from './question.js';

export interface InquiryAskerOptions {
  /** The inquiry node: its base URL or its `/mcp` URL. */
  inquiryUrl: string;
  /** A bearer agent token acting for `userId` (minted with the shared secret, or configured). */
  tokenFor(userId: string): Promise<string>;
  /** Tier 3: the most any wait may take in total (above the service tier). */
  clientTimeoutMs: number;
  logger: Logger;
  version: string;
}

/** How long an aborted ask keeps its connection, so the cancellation reaches the inquiry node. */
const CANCEL_FLUSH_MS = 5000;

/** The `/mcp` endpoint of an inquiry node URL. */
export function inquiryEndpoint(url: string): URL {
  const endpoint = new URL(url);
  if (!endpoint.pathname.replace(/\/+$/, '').endsWith('/mcp')) {
    endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/mcp`;
  }
  return endpoint;
}

/** Reads `send_inquiry`'s structured result as a verdict: only a human's "approve" approves. */
export function verdictOf(result: CallToolResult): HumanVerdict & { pending?: boolean } {
  const parsed = InquiryResultSchema.safeParse(result.structuredContent);
  if (result.isError || !parsed.success) {
    const text = result.content.find((c) => c.type === 'text')?.text;
    return { outcome: 'failed', detail: text ?? 'the inquiry service gave no result' };
  }
  const { inquiryId, status, answer, resolvedBy } = parsed.data;
  const base = {
    ...(inquiryId ? { inquiryId } : {}),
    ...(resolvedBy?.deviceName ? { deviceName: resolvedBy.deviceName } : {}),
  };
  switch (status) {
    case 'answered':
      if (resolvedBy?.kind !== 'human') return { ...base, outcome: 'timed_out' };
      return { ...base, outcome: answer === 'approve' ? 'approved' : 'rejected' };
    case 'refused':
    case 'timed_out':
    case 'cancelled':
      return { ...base, outcome: status };
    case 'pending':
      return { ...base, outcome: 'timed_out', pending: true };
    default:
      return { ...base, outcome: 'failed', detail: `inquiry ${status}` };
  }
}

/**
 * Asks through an inquiry node's `send_inquiry` (kind `approval`) with the official SDK client,
 * as the calling agent's user, so the question reaches that person's devices like any other.
 */
export class InquiryAsker implements AskHuman {
  private readonly endpoint: URL;

  constructor(private readonly options: InquiryAskerOptions) {
    this.endpoint = inquiryEndpoint(options.inquiryUrl);
  }

  async ask(request: ApprovalRequest, { signal, onProgress }: AskOptions): Promise<HumanVerdict> {
    const client = new Client({ name: 'hitl-approval-proxy', version: this.options.version });
    try {
      const token = await this.options.tokenFor(request.userId);
      await client.connect(
        new StreamableHTTPClientTransport(this.endpoint, {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
        { signal },
      );
      const call = {
        signal,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.options.clientTimeoutMs,
        onprogress: (p: { message?: string; _meta?: Record<string, unknown> }) => {
          const inquiryId = typeof p._meta?.inquiryId === 'string' ? p._meta.inquiryId : undefined;
          onProgress?.({ inquiryId, message: p.message });
        },
      };
      let verdict = verdictOf(
        (await client.callTool(
          { name: 'send_inquiry', arguments: approvalQuestion(request) },
          undefined,
          call,
        )) as CallToolResult,
      );
      // A draining node ends the wait early (`pending`): collect the answer with bounded waits.
      while (verdict.pending && verdict.inquiryId && !signal.aborted) {
        const args = { inquiryId: verdict.inquiryId, waitMs: 20_000 };
        verdict = verdictOf(
          (await client.callTool(
            { name: 'get_inquiry', arguments: args },
            undefined,
            call,
          )) as CallToolResult,
        );
      }
      return verdict;
    } catch (error) {
      if (signal.aborted) return { outcome: 'cancelled' };
      this.options.logger.warn({ err: (error as Error).message }, 'approval inquiry failed');
      return { outcome: 'failed', detail: (error as Error).message };
    } finally {
      if (signal.aborted) {
        // The SDK sends `notifications/cancelled` without awaiting it; closing now would abort that POST.
        setTimeout(() => void client.close().catch(() => undefined), CANCEL_FLUSH_MS).unref();
      } else {
        await client.close().catch(() => undefined);
      }
    }
  }
}
