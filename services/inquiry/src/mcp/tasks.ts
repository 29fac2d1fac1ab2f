import { HitlError, type Inquiry, MIN_ANSWER_WINDOW_MS, type SendInquiryInput } from '@hitl/protocol';
import { newTaskId, type TaskRecord } from '@hitl/store';
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  type GetTaskResult,
  type ListTasksResult,
  McpError,
  RELATED_TASK_META_KEY,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { askInChat } from '../chat/chat-ask.js';
import { storeUnavailable } from '../core/store-outage.js';
import type { CallContext, CallExtra } from './call-context.js';
import { toMcpError, toolResult } from './call-results.js';
import { startHeartbeat } from './heartbeat.js';
import { waitForEnd } from './wait-for-end.js';

/*
 * MCP tasks (protocol 2025-11-25) on top of inquiries. A task is a handle on one
 * inquiry, kept in the task store; its status is read from the inquiry, so any node answers for
 * any task. pending → working; answered, refused, timed_out → completed (each is a normal
 * CallToolResult, which `tasks/result` returns as send_inquiry would have); cancelled → cancelled.
 * Nothing here ends in `failed`: a call that fails fails before its task exists.
 */

/** How often clients are asked to poll `tasks/get`: people answer in seconds to days. */
export const TASK_POLL_INTERVAL_MS = 5000;
/** The text hosts may hand the model at once while the task runs (spec 2025-11-25, tasks note). */
export const MODEL_IMMEDIATE_RESPONSE = 'io.modelcontextprotocol/model-immediate-response';

/** The task's answer window: `answerWithinMs` when given, else the task's ttl, capped; no ttl: the cap. */
export function answerWindowFor(ctx: CallContext, input: SendInquiryInput, ttl: number | undefined): number {
  if (input.answerWithinMs !== undefined) return input.answerWithinMs;
  const wanted = ttl === undefined ? ctx.maxAnswerWindowMs : Math.floor(ttl);
  return Math.max(MIN_ANSWER_WINDOW_MS, Math.min(wanted, ctx.maxAnswerWindowMs));
}

/**
 * `tools/call` of send_inquiry with `params.task`: asks (the inquiry gets the task's answer window),
 * records the task, and answers at once with a `CreateTaskResult`; nothing is held.
 */
export async function createTask(
  ctx: CallContext,
  input: SendInquiryInput,
  task: { ttl?: number },
): Promise<CreateTaskResult> {
  if (ctx.draining()) {
    throw new HitlError('unavailable', 'this node is shutting down; retry on another node', 1000);
  }
  if (!ctx.storeReady()) throw storeUnavailable();
  const answerWithinMs = answerWindowFor(ctx, input, task.ttl);
  const userId = ctx.claims.sub;
  const { inquiry } = await ctx.service.ask(
    { userId, tokenSubject: ctx.claims.sub, name: ctx.claims.name },
    { ...input, answerWithinMs },
  );
  const now = ctx.clock.now();
  const record = await ctx.tasks.create({
    taskId: newTaskId(),
    userId,
    inquiryId: inquiry.inquiryId,
    createdAt: now,
    ttlMs: answerWithinMs,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
    // Readable as long as the inquiry's result is (retention after its end).
    expiresAt: now + answerWithinMs + ctx.retentionMs,
  });
  return {
    task: taskOf(record, inquiry),
    _meta: {
      [MODEL_IMMEDIATE_RESPONSE]:
        `The question is with the person now (inquiry ${inquiry.inquiryId}); nothing is answered or approved ` +
        'yet. Their answer arrives as the result of this task.',
    },
  };
}

/** `tasks/get`. */
export async function getTask(ctx: CallContext, taskId: string): Promise<GetTaskResult> {
  const { record, inquiry } = await findTask(ctx, taskId);
  return taskOf(record, inquiry);
}

/**
 * `tasks/result`: blocks until the inquiry ends (the spec's rule for a working task), sending
 * progress heartbeats when the request carries a progress token and a `notifications/tasks/status`
 * on this stream when it ends, then returns the very result send_inquiry would have returned.
 * A wait the node has to give up (it drains) is a retryable error, never a made-up result.
 */
export async function getTaskResult(
  ctx: CallContext,
  taskId: string,
  extra: CallExtra,
): Promise<CallToolResult> {
  const { record, inquiry } = await findTask(ctx, taskId);
  if (inquiry.status !== 'pending') return taskResult(ctx, taskId, inquiry);
  return holdTask(ctx, slimTask(record), inquiry, extra);
}

/**
 * A held `tasks/result`, as `send_inquiry`'s hold (tool-calls.ts): a `.then`, not an `await`, and only
 * the task fields its end needs, since every held wait keeps them (heap snapshots, 1,000 held: an
 * `await` here and the whole task record were ~1 KB more per held call than a held `send_inquiry`).
 */
function holdTask(
  ctx: CallContext,
  task: SlimTask,
  inquiry: Inquiry,
  extra: CallExtra,
): Promise<CallToolResult> {
  // The first progress notification (at once) names the inquiry, as send_inquiry's does.
  const heartbeat = startHeartbeat(extra, ctx.clock, ctx.heartbeatMs, inquiry);
  // The service timer ends the inquiry at serviceAt (answerBy); the rest is the safety net.
  const { serviceAt, clientAt } = inquiry.deadlines;
  const deadline = serviceAt + Math.max(60_000, clientAt - serviceAt);
  const waited = waitForEnd(ctx, inquiry.inquiryId, extra, deadline, { cancelsInquiry: false, heartbeat });
  // A held tasks/result asks in the chat like a held call (chat/chat-ask.ts).
  const asked = ctx.chat && askInChat(ctx.chat, ctx.claims.sub, inquiry, extra);
  return (asked ? waited.then(asked.settled, asked.failed) : waited).then(
    (ended) => endHeldTask(ctx, task, ended, extra),
    (error: unknown) => {
      throw toMcpError(error);
    },
  );
}

async function endHeldTask(
  ctx: CallContext,
  task: SlimTask,
  ended: Inquiry | null,
  extra: CallExtra,
): Promise<CallToolResult> {
  // Still pending, or gone while held (past its retention): the next `tasks/result` tells which.
  if (ended === null || ended.status === 'pending') {
    throw toMcpError(
      new HitlError('unavailable', `task ${task.taskId} is still working; ask for its result again`, 1000),
    );
  }
  await extra
    .sendNotification({ method: 'notifications/tasks/status', params: taskOf(task, ended) })
    .catch(() => undefined);
  return taskResult(ctx, task.taskId, ended);
}

function taskResult(ctx: CallContext, taskId: string, ended: Inquiry): CallToolResult {
  const result = toolResult(ended, ctx.clock.now(), ctx.maxWaitMs);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/**
 * `tasks/cancel`: cancels the inquiry (devices close it, `resolvedBy.kind` "agent"). A task already
 * ended, or ended by someone else first, is refused with invalid params, as the spec asks.
 */
export async function cancelTask(ctx: CallContext, taskId: string): Promise<GetTaskResult> {
  const { record, inquiry } = await findTask(ctx, taskId);
  let ended = inquiry;
  if (inquiry.status === 'pending') {
    try {
      const outcome = await ctx.service.settle(inquiry.inquiryId, ctx.claims.sub, { type: 'cancel' });
      if (outcome.kind === 'not_found') throw notFound(taskId);
      ended = outcome.inquiry;
    } catch (error) {
      throw toMcpError(error);
    }
    if (ended.status === 'cancelled') return taskOf(record, ended);
  }
  const { status } = taskOf(record, ended);
  throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task ${taskId}: it is already ${status}`);
}

/** `tasks/list`: the caller's own tasks, newest first, a page at a time. */
export async function listTasks(ctx: CallContext, cursor: string | undefined): Promise<ListTasksResult> {
  const userId = ctx.claims.sub;
  try {
    const page = await ctx.tasks.list(userId, cursor === undefined ? {} : { cursor });
    const inquiries = await Promise.all(page.tasks.map((t) => ctx.service.findAsked(t.inquiryId, userId)));
    const tasks = page.tasks.flatMap((record, i) => {
      const inquiry = inquiries[i];
      return inquiry ? [taskOf(record, inquiry)] : [];
    });
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  } catch (error) {
    throw toMcpError(error);
  }
}

/** The caller's task and its inquiry; another user's task, or one whose inquiry is gone, is not found. */
async function findTask(ctx: CallContext, taskId: string): Promise<{ record: TaskRecord; inquiry: Inquiry }> {
  const userId = ctx.claims.sub;
  // Not a task id this node could have made: not found, without a store read.
  if (!TASK_ID.test(taskId)) throw notFound(taskId);
  try {
    const record = await ctx.tasks.get(taskId, userId);
    const inquiry = record && (await ctx.service.findAsked(record.inquiryId, userId));
    if (record && inquiry) return { record, inquiry };
  } catch (error) {
    throw toMcpError(error);
  }
  throw notFound(taskId);
}

/** The shape of {@link newTaskId}'s ids (24 bytes, base64url). */
const TASK_ID = /^[A-Za-z0-9_-]{32}$/;

function notFound(taskId: string): McpError {
  const shown = taskId.length > 64 ? `${taskId.slice(0, 64)}…` : taskId;
  return new McpError(ErrorCode.InvalidParams, `Task not found: ${shown}`);
}

const STATUS_WORDS: Record<Inquiry['status'], string> = {
  pending: 'Waiting for the person to answer.',
  answered: 'The question has ended with an answer.',
  refused: 'The person declined to answer.',
  timed_out: 'Nobody answered in time.',
  cancelled: 'The question was cancelled.',
};

/** What {@link taskOf} reads of a task record. */
type SlimTask = Pick<TaskRecord, 'taskId' | 'ttlMs' | 'createdAt' | 'pollIntervalMs'>;

function slimTask({ taskId, ttlMs, createdAt, pollIntervalMs }: TaskRecord): SlimTask {
  return { taskId, ttlMs, createdAt, pollIntervalMs };
}

/** The task as the protocol shows it, its status read from the inquiry. */
export function taskOf(record: SlimTask, inquiry: Inquiry): Task {
  const status =
    inquiry.status === 'pending' ? 'working' : inquiry.status === 'cancelled' ? 'cancelled' : 'completed';
  return {
    taskId: record.taskId,
    status,
    statusMessage: STATUS_WORDS[inquiry.status],
    ttl: record.ttlMs,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(inquiry.resolvedAt ?? record.createdAt).toISOString(),
    pollInterval: record.pollIntervalMs,
  };
}
