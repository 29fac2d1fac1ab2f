import { HeldCalls } from '@hitl/mcp-http';
import {
  type Deadlines,
  describeZodError,
  GetInquiryInputSchema,
  HitlError,
  type Inquiry,
  SendInquiryInputSchema,
} from '@hitl/protocol';
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { answerInquiry } from '../chat/card-answer.js';
import { askInChat } from '../chat/chat-ask.js';
import { storeUnavailable } from '../core/store-outage.js';
import type { CallContext, CallExtra } from './call-context.js';
import { toMcpError, toolResult } from './call-results.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { createTask } from './tasks.js';
import { callReferenceTtl, waitForEnd } from './wait-for-end.js';

/**
 * The tool logic both `/mcp` paths share: the per-request SDK server (`mcp-server.ts`) and the
 * direct `tools/call` path (`direct-call.ts`) call `callTool` (the direct path its `runTool`, then
 * `toMcpError` itself) and render its errors the same way. What `tasks.ts` shares with it lives
 * apart (`call-context.ts`, `call-results.ts`, `wait-for-end.ts`), so neither imports the other back.
 */

function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.infer<S> {
  const parsed = schema.safeParse(args ?? {});
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, describeZodError(parsed.error));
  return parsed.data;
}

/**
 * `tools/call` of `send_inquiry` or `get_inquiry`.
 * @throws McpError for misuse and failures (the JSON-RPC error the caller gets)
 */
export async function callTool(
  ctx: CallContext,
  params: { name: string; arguments?: unknown; task?: { ttl?: number } },
  extra: CallExtra,
): Promise<CallToolResult | CreateTaskResult> {
  try {
    return await runTool(ctx, params, extra);
  } catch (error) {
    throw toMcpError(error);
  }
}

/**
 * {@link callTool} for a caller that passes its failure through {@link toMcpError} itself (the direct
 * path).
 */
export async function runTool(
  ctx: CallContext,
  params: { name: string; arguments?: unknown; task?: { ttl?: number } },
  extra: CallExtra,
): Promise<CallToolResult | CreateTaskResult> {
  if (params.task !== undefined && (params.name === 'send_inquiry' || params.name === 'get_inquiry')) {
    // The spec's answer to a task for a tool whose taskSupport is "forbidden": method not found.
    if (params.name !== 'send_inquiry') {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${params.name} does not run as a task (its execution.taskSupport is "forbidden"); call it without params.task`,
      );
    }
    return createTask(ctx, parseArgs(SendInquiryInputSchema, params.arguments), params.task);
  }
  if (params.name === 'send_inquiry') return sendInquiry(ctx, params.arguments, extra);
  if (params.name === 'get_inquiry') return getInquiry(ctx, params.arguments, extra);
  // The inquiry card's own tool (hidden from models: chat/card-answer.ts).
  if (params.name === 'answer_inquiry') return answerInquiry(ctx, params.arguments);
  throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${params.name}`);
}

async function sendInquiry(ctx: CallContext, args: unknown, extra: CallExtra): Promise<CallToolResult> {
  const input = parseArgs(SendInquiryInputSchema, args);
  if (ctx.draining()) {
    throw new HitlError('unavailable', 'this node is shutting down; retry on another node', 1000);
  }
  if (!ctx.storeReady()) throw storeUnavailable();
  // A cancel for this call may reach another node: the store remembers the call with the inquiry it
  // creates (on one Redis in the create's own script), so the hold need not.
  const call = {
    key: HeldCalls.key(ctx.tokenKey, extra.requestId),
    ttlMs: (deadlines: Deadlines) => callReferenceTtl(ctx, holdDeadline(ctx, deadlines, input.timeoutMs)),
  };
  const { inquiry, created } = await ctx.service.ask(
    { userId: ctx.claims.sub, tokenSubject: ctx.claims.sub, name: ctx.claims.name },
    input,
    { call },
  );
  const heartbeat = startHeartbeat(extra, ctx.clock, ctx.heartbeatMs, inquiry, progressReader(ctx, inquiry));
  return hold(ctx, inquiry, extra, holdDeadline(ctx, inquiry.deadlines, input.timeoutMs), heartbeat, created);
}

/**
 * How a held call's heartbeat learns what changed: only a question that can change while pending (one
 * with an escalation or a quorum) is read again on each beat; the rest cost no store read.
 */
function progressReader(ctx: CallContext, inquiry: Inquiry): (() => Promise<Inquiry | null>) | undefined {
  if (inquiry.escalation === undefined && inquiry.quorum === undefined) return undefined;
  return () => ctx.service.find(inquiry.inquiryId);
}

/**
 * When `send_inquiry` stops holding. Past the service deadline the timer has resolved the inquiry;
 * halfway to the client tier is the safety net. An answer window longer than the hold ends the call
 * at the hold with `pending` (a re-attached call holds afresh), and the inquiry stays open.
 */
function holdDeadline(ctx: CallContext, deadlines: Deadlines, timeoutMs: number | undefined): number {
  const { serviceAt, clientAt, answerBy } = deadlines;
  const safetyNet = serviceAt + Math.floor((clientAt - serviceAt) / 2);
  if (answerBy === undefined) return safetyNet;
  return Math.min(safetyNet, ctx.clock.now() + Math.min(timeoutMs ?? ctx.maxWaitMs, ctx.maxWaitMs));
}

async function getInquiry(ctx: CallContext, args: unknown, extra: CallExtra): Promise<CallToolResult> {
  const input = parseArgs(GetInquiryInputSchema, args);
  const userId = ctx.claims.sub;
  const inquiry = input.inquiryId
    ? await ctx.service.findAsked(input.inquiryId, userId)
    : await ctx.service.findByKey(userId, input.idempotencyKey ?? '');
  const waitMs = Math.min(input.waitMs ?? 0, ctx.maxWaitMs);
  if (inquiry?.status !== 'pending' || waitMs === 0) return withCard(ctx, inquiry);
  // Held like send_inquiry: the first progress at once, naming the inquiry; beats
  // that say how a team's or a quorum's question stands.
  const heartbeat = startHeartbeat(extra, ctx.clock, ctx.heartbeatMs, inquiry, progressReader(ctx, inquiry));
  return hold(ctx, inquiry, extra, ctx.clock.now() + waitMs, heartbeat);
}

/**
 * Suspends the call until the inquiry ends, the caller goes away, the node drains, or `deadline`
 * (the wait stops `heartbeat` as it returns). `remembered`: the create already left the call's
 * reference for a cancel on another node. A `.then`, not an `await`: every held direct call keeps
 * this, and a suspended async frame here measured 0.2 KB more per held call (heap snapshots, 1,000
 * held; bench/results/2026-12-02-i36-v8-ab.txt).
 */
function hold(
  ctx: CallContext,
  inquiry: Inquiry,
  extra: CallExtra,
  deadline: number,
  heartbeat: Heartbeat | undefined,
  remembered = false,
): Promise<CallToolResult> {
  if (inquiry.status !== 'pending') {
    heartbeat?.stop();
    return Promise.resolve(withCard(ctx, inquiry));
  }
  const { inquiryId } = inquiry;
  const waited = waitForEnd(ctx, inquiryId, extra, deadline, { cancelsInquiry: true, heartbeat, remembered });
  // In a session whose client takes elicitation, the chat is one more device (chat/chat-ask.ts);
  // a sessionless call has no `chat` and takes none of this.
  const asked = ctx.chat && askInChat(ctx.chat, ctx.claims.sub, inquiry, extra);
  // The inquiry gone while held (removed past its retention) answers as `get_inquiry` would then.
  return (asked ? waited.then(asked.settled, asked.failed) : waited).then((latest) => withCard(ctx, latest));
}

/**
 * The result both tools return, with what the inquiry card needs in its `_meta` while the inquiry is
 * pending (an answer window: the card may answer it then). An ended call's result carries none.
 */
function withCard(ctx: CallContext, inquiry: Inquiry | null): CallToolResult {
  const now = ctx.clock.now();
  const result = toolResult(inquiry, now, ctx.maxWaitMs);
  return inquiry?.status === 'pending' ? ctx.cards.withCard(result, inquiry, ctx.claims.sub, now) : result;
}
