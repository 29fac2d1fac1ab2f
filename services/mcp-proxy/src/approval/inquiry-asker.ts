import { InquiryResultSchema } from '@hitl/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ApprovalRequest, AskedApproval, AskHuman, AskOptions, HumanVerdict } from './ask-human.js';
import { NodeClients } from './node-clients.js';
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

/**
 * How long a user's client to the node stays open after their last approval ends: at least long
 * enough for an aborted ask's cancellation (sent without being awaited) to reach the inquiry node.
 */
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
  const { inquiryId, status, answer, resolvedBy, reason } = parsed.data;
  const base = {
    ...(inquiryId ? { inquiryId } : {}),
    ...(resolvedBy?.deviceName ? { deviceName: resolvedBy.deviceName } : {}),
    ...(reason ? { reason } : {}),
  };
  switch (status) {
    case 'answered': {
      if (resolvedBy?.kind !== 'human') return { ...base, outcome: 'timed_out' };
      if (answer !== 'approve') return { ...base, outcome: 'rejected' };
      const { arguments: approved, changed } = parsed.data;
      return {
        ...base,
        outcome: 'approved',
        ...(approved && changed?.length ? { approved: { arguments: approved, changed } } : {}),
      };
    }
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
  private readonly clients: NodeClients;

  constructor(private readonly options: InquiryAskerOptions) {
    this.clients = new NodeClients({
      endpoint: inquiryEndpoint(options.inquiryUrl),
      tokenFor: options.tokenFor,
      version: options.version,
      lingerMs: CANCEL_FLUSH_MS,
    });
  }

  /** Closes the clients to the inquiry node (shutdown). */
  close(): Promise<void> {
    return this.clients.closeAll();
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

  /** Runs `work` with a tool caller on the user's shared client, and turns failures into verdicts. */
  private async session(
    userId: string,
    { signal, onProgress }: AskOptions,
    work: (call: ToolCaller) => Promise<HumanVerdict>,
  ): Promise<HumanVerdict> {
    let release: (() => void) | undefined;
    try {
      // Asked first so a token that cannot act for this user fails the ask before any connection.
      await this.options.tokenFor(userId);
      const lease = await this.clients.acquire(userId, signal);
      release = lease.release;
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
          (await lease.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult,
      );
    } catch (error) {
      if (signal.aborted) return { outcome: 'cancelled' };
      this.options.logger.warn({ err: (error as Error).message }, 'approval inquiry failed');
      return { outcome: 'failed', detail: (error as Error).message };
    } finally {
      // The client lingers after its last lease (CANCEL_FLUSH_MS), so a cancellation still goes out.
      release?.();
    }
  }
}

type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
