import { HitlError, type Inquiry, toInquiryResult } from '@hitl/protocol';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { resultText } from './result-text.js';

/** Maps our errors onto JSON-RPC: misuse is a protocol error; nothing here is an `isError` result. */
export function toMcpError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof HitlError) {
    const code = error.code === 'invalid_input' ? ErrorCode.InvalidParams : ErrorCode.InternalError;
    const data: Record<string, unknown> = { code: error.code };
    if (error.retryAfterMs !== undefined) data.retryAfterMs = error.retryAfterMs;
    return new McpError(code, error.message, data);
  }
  if (isStoreOutage(error)) return toMcpError(storeUnavailable());
  return new McpError(ErrorCode.InternalError, 'internal error');
}

/** The result both tools return (and a task's `tasks/result`): the text the model reads and the structure. */
export function toolResult(inquiry: Inquiry | null, now: number, maxWaitMs?: number): CallToolResult {
  const structured = toInquiryResult(inquiry, now);
  const text = resultText(structured, { answerBy: inquiry?.deadlines.answerBy, waitMs: maxWaitMs });
  return { content: [{ type: 'text', text }], structuredContent: structured };
}
