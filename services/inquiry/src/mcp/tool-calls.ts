import {
  type Deadlines,
  describeZodError,
  ERROR_WIRE,
  GetInquiryInputSchema,
  HitlError,
  type Inquiry,
  SendInquiryInputSchema,
  type TokenClaims,
  toInquiryResult,
} from '@hitl/protocol';
import type { InquiryStore, TaskStore } from '@hitl/store';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { InquiryService } from '../core/inquiry-service.js';
import { type Clock, sleep } from '../core/ports.js';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { jsonRpcDataOf } from '../http/errors.js';
import type { CallAbort, CallSignal } from './call-abort.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { HeldCalls } from './held-calls.js';
import { resultText } from './result-text.js';
import { createTask } from './tasks.js';

/**
 * The tool logic both `/mcp` paths share: the per-request SDK server (`mcp-server.ts`) and the
 * direct `tools/call` path (`direct-call.ts`) call `callTool` (the direct path its `runTool`, then
 * `toMcpError` itself) and render its errors the same way.
 */

/** What a tool call needs from the node and the caller. */
export interface CallContext {
  service: InquiryService;
  store: InquiryStore;
  heldCalls: HeldCalls;
  clock: Clock;
  claims: TokenClaims;
  tokenKey: string;
  heartbeatMs: number;
  /** Longest a held call waits: a `get_inquiry` wait, or `send_inquiry`'s hold (the service tier). */
  maxWaitMs: number;
  /** The node is draining: no new inquiries. */
  draining: () => boolean;
  /** False while the shared store is known to be unreachable: new inquiries fail fast. */
  storeReady: () => boolean;
  /** MCP task handles (tasks.ts). */
  tasks: TaskStore;
  /** The longest answer window; a task's ttl is capped to it. */
  maxAnswerWindowMs: number;
  /** How long a resolved inquiry (and so its task's result) stays readable, in ms. */
  retentionMs: number;
}

/** The part of the SDK's request context a tool call uses; the direct path provides it too. */
export type CallExtra = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'requestId' | 'sendNotification' | '_meta'
> & {
  /** The SDK's `AbortSignal`, or the direct path's own {@link CallAbort}. */
  signal: CallSignal;
  /**
   * The controller of `signal`, when the call owns it (the direct path): a held call then uses it
   * for the drain too instead of a second controller and a listener.
   */
  controller?: CallAbort;
};

/** While the store is away a held call pauses this long between tries, in ms. */
const OUTAGE_PAUSE_MS = 500;

function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.infer<S> {
  const parsed = schema.safeParse(args ?? {});
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, describeZodError(parsed.error));
  return parsed.data;
}

/**
 * Maps our errors onto JSON-RPC by the one error table (`ERROR_WIRE`), `data` as at the door: misuse is
 * a protocol error; nothing here is an `isError` result.
 */
export function toMcpError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof HitlError)
    return new McpError(ERROR_WIRE[error.code].jsonRpc, error.message, jsonRpcDataOf(error));
  if (isStoreOutage(error)) return toMcpError(storeUnavailable());
  return new McpError(ERROR_WIRE.internal.jsonRpc, 'internal error');
}

/** The result both tools return (and a task's `tasks/result`): the text the model reads and the structure. */
export function toolResult(inquiry: Inquiry | null, now: number, maxWaitMs?: number): CallToolResult {
  const structured = toInquiryResult(inquiry, now);
  const text = resultText(structured, { answerBy: inquiry?.deadlines.answerBy, waitMs: maxWaitMs });
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * `tools/call` of `send_inquiry` or `get_inquiry`.
 * @throws McpError for misuse and failures (the JSON-RPC error the caller gets)
 */
export function callTool(
  ctx: CallContext,
  params: { name: string; arguments?: unknown; task?: { ttl?: number } },
  extra: CallExtra,
): Promise<CallToolResult | CreateTaskResult> {
  return runTool(ctx, params, extra).catch(rethrowAsMcpError);
}

/**
 * {@link callTool} for a caller that passes its failure through {@link toMcpError} itself (the direct
 * path): one promise and reaction fewer per held call.
 */
export function runTool(
  ctx: CallContext,
  params: { name: string; arguments?: unknown; task?: { ttl?: number } },
  extra: CallExtra,
): Promise<CallToolResult | CreateTaskResult> {
  // Promise chains, not awaits, from here down to the wait: a held call keeps one suspended
  // async frame (waitForEnd) instead of one per level (docs/BENCHMARKS.md, RSS per held call), and
  // dispatch is not async (an async function returning the tool's promise is one more link).
  try {
    return dispatch(ctx, params, extra);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One function for every call's `.catch` (an arrow there would be a new closure per held call). */
function rethrowAsMcpError(error: unknown): never {
  throw toMcpError(error);
}

/** @throws McpError for misuse, synchronously (callTool turns it into the call's rejection) */
function dispatch(
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
  if (inquiry?.status !== 'pending' || waitMs === 0)
    return toolResult(inquiry, ctx.clock.now(), ctx.maxWaitMs);
  // Held like send_inquiry (DESIGN §6.1): the first progress at once, naming the inquiry; beats
  // that say how a team's or a quorum's question stands.
  const heartbeat = startHeartbeat(extra, ctx.clock, ctx.heartbeatMs, inquiry, progressReader(ctx, inquiry));
  return hold(ctx, inquiry, extra, ctx.clock.now() + waitMs, heartbeat);
}

/**
 * Suspends the call until the inquiry ends, the caller goes away, the node drains, or `deadline`;
 * the wait stops `heartbeat` as it returns (no `.finally` link per held call for it). `remembered`:
 * the create already left the call's reference for a cancel on another node.
 */
function hold(
  ctx: CallContext,
  inquiry: Inquiry,
  extra: CallExtra,
  deadline: number,
  heartbeat: Heartbeat | undefined,
  remembered = false,
): Promise<CallToolResult> {
  return waitForEnd(ctx, inquiry, extra, deadline, { cancelsInquiry: true, heartbeat, remembered }).then(
    (latest) => toolResult(latest, ctx.clock.now(), ctx.maxWaitMs),
  );
}

/** How long a held call's reference is kept: until a minute past the hold's end (at least a second). */
function callReferenceTtl(ctx: CallContext, deadline: number): number {
  return Math.max(1000, deadline - ctx.clock.now() + 60_000);
}

/**
 * Suspends a call until the inquiry ends, the caller goes away, the node drains, or `deadline`,
 * and returns the inquiry as it is then. With `cancelsInquiry` a `notifications/cancelled` for this
 * call (on any node) cancels the inquiry; a task's `tasks/result` wait does not (only `tasks/cancel`
 * does). Either way a draining node releases the call. A `heartbeat` is stopped as it returns.
 */
export async function waitForEnd(
  ctx: CallContext,
  inquiry: Inquiry,
  extra: CallExtra,
  deadline: number,
  {
    cancelsInquiry,
    heartbeat,
    remembered = false,
  }: { cancelsInquiry: boolean; heartbeat?: Heartbeat | undefined; remembered?: boolean },
): Promise<Inquiry> {
  const { inquiryId } = inquiry;
  if (inquiry.status !== 'pending') {
    heartbeat?.stop();
    return inquiry;
  }
  const key = HeldCalls.key(ctx.tokenKey, extra.requestId);
  const own = extra.controller?.signal === extra.signal ? extra.controller : undefined;
  const call = ctx.heldCalls.hold(key, inquiryId, cancelsInquiry, own);
  let gone: CallerGone | undefined;
  try {
    if (cancelsInquiry && !remembered) {
      // A cancel for this call may reach another node: let it find the inquiry through the store.
      // Best effort: while the store is away the call still waits, it just cannot be cancelled remotely.
      ctx.store.rememberCall(key, inquiryId, callReferenceTtl(ctx, deadline)).catch(() => undefined);
    }
    // The caller going away ends the wait too (nothing to follow when its signal is the call's own):
    // one listener, lighter than a composite signal per call.
    const { signal } = call.controller;
    if (!own && extra.signal.aborted) call.controller.abort(extra.signal.reason);
    else if (!own) {
      gone = new CallerGone(call.controller, extra.signal);
      extra.signal.addEventListener('abort', gone, { once: true });
    }
    for (;;) {
      try {
        return (await ctx.service.wait(inquiry, signal, deadline)) ?? inquiry;
      } catch (error) {
        // A store outage (Redis restarting) pauses the wait instead of failing the call.
        if (!isStoreOutage(error) || signal.aborted || ctx.clock.now() >= deadline) throw error;
        await sleep(ctx.clock, OUTAGE_PAUSE_MS);
      }
    }
  } finally {
    heartbeat?.stop();
    if (gone) extra.signal.removeEventListener('abort', gone);
    ctx.heldCalls.release(key, call);
  }
}

/**
 * Aborts a held call's own controller when the caller's signal (the SDK's) aborts. An object
 * listener, made only on that path: a closure in `waitForEnd` would give every held call a context
 * and a function for it, the direct path's calls included.
 */
class CallerGone {
  constructor(
    private readonly controller: CallAbort,
    private readonly caller: CallSignal,
  ) {}

  handleEvent(): void {
    this.controller.abort(this.caller.reason);
  }
}
