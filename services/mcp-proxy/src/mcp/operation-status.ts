import { LIMITS } from '@hitl/protocol';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ProxyStore } from '../store/proxy-store.js';
import type { StoredOutcome } from './idempotent-call.js';

export const OPERATION_STATUS_TOOL = 'get_operation_status';

/** The proxy's own tool, listed after the backend's. */
export const operationStatusTool: Tool = {
  name: OPERATION_STATUS_TOOL,
  title: 'Operation status',
  description:
    'Look up an action you started with an idempotency key (in _meta.idempotencyKey): whether it is ' +
    'waiting for a person to approve it, running, or done, and its result once done.',
  inputSchema: {
    type: 'object',
    properties: {
      idempotencyKey: { type: 'string', description: 'The key you gave in _meta.idempotencyKey.' },
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
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

const InputSchema = z.object({ idempotencyKey: z.string().min(1).max(LIMITS.idempotencyKeyChars) });

const TEXT: Record<string, string> = {
  not_found: 'No action with this key exists (never started, or its result is no longer kept).',
  awaiting_approval: 'The action is waiting for a person to approve it; nothing has run yet.',
  in_progress: 'The action is running.',
  done: 'The action is done.',
};

/** `get_operation_status {idempotencyKey}` → `not_found | awaiting_approval | in_progress | done` (+ result). */
export async function operationStatus(
  store: ProxyStore,
  userId: string,
  args: unknown,
): Promise<CallToolResult> {
  const parsed = InputSchema.safeParse(args ?? {});
  if (!parsed.success) {
    throw new McpError(ErrorCode.InvalidParams, 'idempotencyKey: must be a string of 1 to 255 characters');
  }
  const key = parsed.data.idempotencyKey;
  const op = await store.getOperation(userId, key);
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
