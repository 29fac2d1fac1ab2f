import {
  type CallToolRequest,
  type CallToolResult,
  CallToolResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Backend } from '../backend/backend.js';
import type { ProgressRelay } from './progress-relay.js';

export interface ForwardOptions {
  signal: AbortSignal;
  timeoutMs: number;
  relay?: ProgressRelay;
}

/**
 * Calls the tool on the backend: the agent's progress token is replaced by the SDK's own and
 * restored on the way back (by the relay), cancellation travels through `signal`, and the timeout
 * is the proxy's (reset by backend progress) instead of the SDK's 60 s default.
 */
export async function forwardCall(
  backend: Backend,
  params: CallToolRequest['params'],
  { signal, timeoutMs, relay }: ForwardOptions,
): Promise<CallToolResult> {
  const { _meta, ...rest } = params;
  const { progressToken: _agentToken, ...meta } = _meta ?? {};
  const forwarded = Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
  relay?.startBackend();
  const result = await backend.client.request(
    { method: 'tools/call', params: forwarded },
    CallToolResultSchema,
    {
      signal,
      timeout: timeoutMs,
      resetTimeoutOnProgress: true,
      ...(relay ? { onprogress: (progress) => relay.backend(progress) } : {}),
    },
  );
  return result as CallToolResult;
}
