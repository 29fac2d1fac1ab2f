import { LIMITS } from '@hitl/protocol';
import type { Operation } from '@hitl/store';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CallDeps } from './call-deps.js';
import { attach } from './late-approval.js';
import type { StoredOutcome } from './owned-run.js';

export const OPERATION_STATUS_TOOL = 'get_operation_status';

/** The proxy's own tool, listed after the backend's. */
export const operationStatusTool: Tool = {
  name: OPERATION_STATUS_TOOL,
  title: 'Operation status',
  description:
    'Look up an action you started with an idempotency key (in _meta.idempotencyKey): whether it is ' +
    'waiting for a person to approve it, running, or done, and its result once done. Pass waitMs to ' +
    'wait for the outcome (up to about a minute per call); while it says awaiting_approval, call again. ' +
    'Once the person approves, the action runs (once) and its result comes back here.',
  inputSchema: {
    type: 'object',
    properties: {
      idempotencyKey: { type: 'string', description: 'The key you gave in _meta.idempotencyKey.' },
      waitMs: {
        type: 'integer',
        minimum: 0,
        description: 'Wait up to this many ms for the outcome before answering (bounded by the service).',
      },
    },
    required: ['idempotencyKey'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      idempotencyKey: { type: 'string' },
      status: { type: 'string', enum: ['not_found', 'awaiting_approval', 'in_progress', 'done'] },
      inquiryId: { type: 'string', description: 'The approval question, when one was asked.' },
      result: { type: 'object', description: 'The action’s result, once done.' },
      error: { type: 'object', description: 'The protocol error the action ended with, if any.' },
    },
    required: ['idempotencyKey', 'status'],
  },
  // Not read-only: collecting an approval that outlived its call runs the approved action (once; calling
  // again changes nothing more, and it never runs anything a person did not approve).
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

const InputSchema = z.object({
  idempotencyKey: z.string().min(1).max(LIMITS.idempotencyKeyChars),
  waitMs: z.number().int().min(0).optional(),
});

const TEXT: Record<string, string> = {
  not_found: 'No action with this key exists (never started, or its result is no longer kept).',
  awaiting_approval:
    'The action is waiting for a person to approve it; nothing has run yet and nothing is approved. ' +
    'Call get_operation_status again (with waitMs) to keep waiting.',
  in_progress: 'The action was approved and is running; call again (with waitMs) for its result.',
  done: 'The action is done.',
};

/**
 * `get_operation_status {idempotencyKey, waitMs?}` → `not_found | awaiting_approval | in_progress |
 * done` (+ result). An operation whose approval outlived its call is collected here: this caller waits
 * on the approval (up to `waitMs`, capped at the hold) and, once approved, runs the stored call once.
 */
export async function operationStatus(
  deps: CallDeps,
  userId: string,
  args: unknown,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const parsed = InputSchema.safeParse(args ?? {});
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'idempotencyKey');
    const problem =
      field === 'waitMs'
        ? 'waitMs: must be a whole number of ms, 0 or more'
        : `idempotencyKey: must be a string of 1 to ${LIMITS.idempotencyKeyChars} characters`;
    throw new McpError(ErrorCode.InvalidParams, problem);
  }
  const key = parsed.data.idempotencyKey;
  const waitMs = Math.min(parsed.data.waitMs ?? 0, deps.timings.holdMs);
  let op = await deps.store.getOperation(userId, key);
  if (op && op.state !== 'done') op = await collect(deps, op, waitMs, signal);
  return statusResult(key, op);
}

/** Waits on an unfinished operation (adopting it when its approval has nobody waiting on it). */
async function collect(
  deps: CallDeps,
  op: Operation,
  waitMs: number,
  signal: AbortSignal,
): Promise<Operation | null> {
  const until = deps.clock.now() + waitMs;
  if (op.call) {
    const call = {
      userId: op.userId,
      params: { name: op.call.name, arguments: op.call.arguments },
      signal,
      idempotencyKey: op.key,
    };
    // Errors of the run itself are stored in the operation; the status below reports them.
    await attach(deps, call, op, until).catch((error: unknown) => {
      if (signal.aborted) throw error;
    });
  } else if (waitMs > 0) {
    const timeout = AbortSignal.timeout(waitMs);
    await deps.store
      .waitForOperation(op.userId, op.key, AbortSignal.any([signal, timeout]))
      .catch((error: unknown) => {
        if (!timeout.aborted || signal.aborted) throw error;
      });
  }
  return deps.store.getOperation(op.userId, op.key);
}

function statusResult(key: string, op: Operation | null): CallToolResult {
  const stored = op?.result as StoredOutcome | undefined;
  const structured = {
    idempotencyKey: key,
    status: op?.state ?? 'not_found',
    ...(op?.inquiryId ? { inquiryId: op.inquiryId } : {}),
    ...(stored && 'result' in stored ? { result: stored.result } : {}),
    ...(stored && 'error' in stored ? { error: stored.error } : {}),
  };
  return {
    content: [{ type: 'text', text: `${TEXT[structured.status]}\n${JSON.stringify(structured)}` }],
    structuredContent: structured,
  };
}
