import { InquiryResultSchema } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ApprovalRequest, AskedApproval, AskHuman, AskOptions, HumanVerdict } from './ask-human.js';
import { approvalKey, approvalQuestion } from './question.js';

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

/** Reads `send_inquiry`'s (or `get_inquiry`'s) structured result as a verdict: only a human's "approve" approves. */
export function verdictOf(result: CallToolResult): HumanVerdict {
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
    case 'pending':
      return { ...base, outcome: status };
    case 'not_found':
      return {
        ...base,
        outcome: 'failed',
        gone: true,
        detail: 'the inquiry service no longer knows this approval',
      };
    default:
      return { ...base, outcome: 'failed', detail: `inquiry ${status}` };
  }
}

/** Longest single `get_inquiry` wait (the node caps `waitMs` at its service tier anyway). */
const COLLECT_CHUNK_MS = 20_000;

/**
 * Asks through an inquiry node's `send_inquiry` (kind `approval`) with the official SDK client,
 * as the calling agent's user, so the question reaches that person's devices like any other.
 */
export class InquiryAsker implements AskHuman {
  private readonly endpoint: URL;

  constructor(private readonly options: InquiryAskerOptions) {
    this.endpoint = inquiryEndpoint(options.inquiryUrl);
  }

  ask(request: ApprovalRequest, options: AskOptions): Promise<HumanVerdict> {
    const until = Date.now() + request.holdMs;
    return this.session(request.userId, options, async (call) => {
      const verdict = verdictOf(
        await call('send_inquiry', approvalQuestion(request) as Record<string, unknown>),
      );
      // A draining node may end the wait before the hold: go on collecting until the hold ends.
      return this.waitWhilePending(call, verdict, { inquiryId: verdict.inquiryId }, until, options.signal);
    });
  }

  collect(asked: AskedApproval, waitMs: number, options: AskOptions): Promise<HumanVerdict> {
    const until = Date.now() + waitMs;
    const target = asked.inquiryId
      ? { inquiryId: asked.inquiryId }
      : { idempotencyKey: approvalKey(asked.grantId) };
    return this.session(asked.userId, options, (call) =>
      this.waitWhilePending(call, { outcome: 'pending' }, target, until, options.signal, true),
    );
  }

  /** `get_inquiry` with bounded waits while the verdict is `pending` and time is left (at least one look when `first`). */
  private async waitWhilePending(
    call: ToolCaller,
    verdict: HumanVerdict,
    target: { inquiryId?: string; idempotencyKey?: string },
    until: number,
    signal: AbortSignal,
    first = false,
  ): Promise<HumanVerdict> {
    let current = verdict;
    let look = first;
    while (current.outcome === 'pending' && !signal.aborted) {
      const left = until - Date.now();
      if (!look && left < 1000) break;
      look = false;
      const inquiryId = current.inquiryId ?? target.inquiryId;
      const args = inquiryId ? { inquiryId } : { idempotencyKey: target.idempotencyKey };
      current = verdictOf(
        await call('get_inquiry', { ...args, waitMs: Math.max(0, Math.min(left, COLLECT_CHUNK_MS)) }),
      );
      if (current.outcome === 'pending' && !current.inquiryId && inquiryId) current.inquiryId = inquiryId;
    }
    return current;
  }

  /** Connects as the user, runs `work` with a tool caller, and turns failures into verdicts. */
  private async session(
    userId: string,
    { signal, onProgress }: AskOptions,
    work: (call: ToolCaller) => Promise<HumanVerdict>,
  ): Promise<HumanVerdict> {
    const client = new Client({ name: 'hitl-approval-proxy', version: this.options.version });
    try {
      const token = await this.options.tokenFor(userId);
      await client.connect(
        new StreamableHTTPClientTransport(this.endpoint, {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
        { signal },
      );
      const options = {
        signal,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.options.clientTimeoutMs,
        onprogress: (p: { message?: string; _meta?: Record<string, unknown> }) => {
          const inquiryId = typeof p._meta?.inquiryId === 'string' ? p._meta.inquiryId : undefined;
          onProgress?.({ inquiryId, message: p.message });
        },
      };
      return await work(
        async (name, args) =>
          (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult,
      );
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

type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
