import { jsonRpcDataOf } from '@hitl/mcp-http';
import { ERROR_WIRE, HitlError, type Inquiry, toInquiryResult } from '@hitl/protocol';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { resultText } from './result-text.js';

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
