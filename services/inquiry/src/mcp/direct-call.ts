import type { ServerResponse } from 'node:http';
import type { KeepAliveStream, SseKeepAlive } from '@hitl/mcp-http';
import { CallAbort, NodeSink, type SseSink, streamSink } from '@hitl/mcp-http';
import { DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ErrorCode,
  type GetTaskPayloadRequest,
  GetTaskPayloadRequestSchema,
  type JSONRPCMessage,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, CallExtra } from './call-context.js';
import { toMcpError } from './call-results.js';
import { getTaskResult } from './tasks.js';
import { runTool } from './tool-calls.js';

/*
 * The contract of the direct path: it serves only what it fully understands and declines (hands
 * to the SDK path, which answers as before) everything else, so a request can never get a
 * different answer here than through the SDK's `Server`. test/direct-call.test.ts compares the
 * frames of both paths for every case below; an SDK upgrade that changes them fails there.
 */

/** The two tools this node serves; a call to any other name goes the SDK's way (and fails there). */
const DIRECT_TOOLS = new Set(['send_inquiry', 'get_inquiry']);

/**
 * The `MCP-Protocol-Version` values this path serves, pinned here rather than read from the SDK's
 * `SUPPORTED_PROTOCOL_VERSIONS`: a version the SDK learns later may change frames or params, and
 * goes the SDK's way until the parity test has been run against it and it is added here.
 * A request without the header is served (the transport assumes 2025-03-26 then).
 */
export const DIRECT_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** The members of the JSON-RPC message, of its `params` (per method) and of `params._meta` it understands. */
const KNOWN_MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const KNOWN_PARAMS_KEYS: Record<DirectCall['method'], Set<string>> = {
  'tools/call': new Set(['name', 'arguments', '_meta']),
  'tasks/result': new Set(['taskId', '_meta']),
};
const KNOWN_META_KEYS = new Set(['progressToken']);

/** The SDK transport's keep-alive period (its own constant) for streams that get no heartbeats. */
export const KEEP_ALIVE_MS = DEFAULT_SSE_KEEP_ALIVE_MS;
/** The SDK transport's keep-alive frame; the SDK has no export for it, the parity test pins it. */
export const KEEP_ALIVE_FRAME = ': keepalive\n\n';
const KEEP_ALIVE_BYTES = new TextEncoder().encode(KEEP_ALIVE_FRAME);

/** A request this path serves: a `tools/call` of our tools, or a task's `tasks/result` wait. */
export type DirectCall =
  | { id: string | number; method: 'tools/call'; params: CallToolRequest['params'] }
  | { id: string | number; method: 'tasks/result'; params: GetTaskPayloadRequest['params'] };

function onlyKeys(value: unknown, known: Set<string>): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).every((key) => known.has(key));
}

/**
 * The request this POST carries when it can be served without a per-request SDK server: one
 * JSON-RPC request (no batch), either a `tools/call` of one of our tools with nothing but `name`,
 * `arguments` and a `_meta.progressToken`, or a `tasks/result` with nothing but `taskId` and a
 * `_meta.progressToken`, under a pinned protocol version and the headers the SDK's transport would
 * accept. Anything else (`initialize`, lists, batches, `params.task`, a member this path does not
 * know, a bad header or message) returns undefined and takes the SDK path.
 */
export function directCallOf(body: unknown, headers: Headers): DirectCall | undefined {
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown } | null;
  if (Array.isArray(body) || message?.jsonrpc !== '2.0') return undefined;
  const { id, method } = message;
  if (method !== 'tools/call' && method !== 'tasks/result') return undefined;
  // The SDK's `RequestIdSchema`: a string or an integer.
  if (typeof id !== 'string' && !Number.isInteger(id)) return undefined;
  if (!onlyKeys(message, KNOWN_MESSAGE_KEYS) || !onlyKeys(message.params, KNOWN_PARAMS_KEYS[method]))
    return undefined;
  const meta = (message.params as { _meta?: unknown })._meta;
  if (meta !== undefined && !onlyKeys(meta, KNOWN_META_KEYS)) return undefined;
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !DIRECT_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (method === 'tasks/result') {
    const request = GetTaskPayloadRequestSchema.safeParse(body);
    return request.success ? { id: id as string | number, method, params: request.data.params } : undefined;
  }
  const request = CallToolRequestSchema.safeParse(body);
  if (!request.success || !DIRECT_TOOLS.has(request.data.params.name)) return undefined;
  return { id: id as string | number, method, params: request.data.params };
}

/**
 * Serves one `tools/call` or `tasks/result` on an SSE stream of our own, with the same frames the
 * SDK's transport writes (progress notifications, then the result or the JSON-RPC error). A
 * suspended call then keeps only this stream, its abort controller and the wait itself alive, not a
 * whole SDK server and transport (see bench/results/HISTORY.md: about a third of a held call's heap, and
 * the CPU to build and close them per call). With Node's `outgoing` response the frames go straight to it.
 * @returns the response for Hono (already sent, with `outgoing`)
 */
export function serveDirectCall(
  ctx: CallContext,
  call: DirectCall,
  keepAlive: SseKeepAlive,
  outgoing?: ServerResponse,
): Response {
  const { params } = call;
  // Heartbeats (progress) keep a tracked call's stream busy; any other stream gets comment frames.
  const comments = params._meta?.progressToken === undefined || ctx.heartbeatMs > KEEP_ALIVE_MS;
  const run = new DirectRun(call.id, params._meta, comments ? keepAlive : undefined, outgoing);
  const work =
    call.method === 'tools/call'
      ? runTool(ctx, call.params, run)
      : getTaskResult(ctx, call.params.taskId, run);
  work.then(
    (result) => run.finish({ jsonrpc: '2.0', id: run.requestId, result }),
    (error: unknown) => run.fail(error),
  );
  return run.sink.response;
}

/**
 * One direct call while it runs, as one object: the tool's `CallExtra` (the call keeps only the
 * request id, not `params`), its abort, its sink's owner and its keep-alive stream. A held call
 * keeps it until its answer; measured, a closure for each of these (and their contexts) was ~1 KB
 * more per held call (with `CallAbort`: RSS 14.8 → 11.9 KB; bench/results/HISTORY.md, session 9).
 */
class DirectRun implements CallExtra, KeepAliveStream {
  readonly abort = new CallAbort();
  declare readonly _meta?: CallExtra['_meta'];
  readonly sink: SseSink;

  constructor(
    readonly requestId: string | number,
    meta: CallExtra['_meta'],
    private readonly keepAlives: SseKeepAlive | undefined,
    outgoing: ServerResponse | undefined,
  ) {
    if (meta) this._meta = meta;
    this.sink = outgoing ? new NodeSink(outgoing, this) : streamSink(() => this.gone());
    keepAlives?.add(this);
  }

  async sendNotification(notification: ServerNotification): Promise<void> {
    this.sink.write(frameOf({ jsonrpc: '2.0', ...notification }));
  }

  keepAlive(): void {
    this.sink.write(KEEP_ALIVE_BYTES);
  }

  /** The caller closed the connection. */
  gone(): void {
    this.keepAlives?.remove(this);
    this.abort.abort('the caller closed the connection');
  }

  finish(message: JSONRPCMessage): void {
    this.sink.end(frameOf(message));
    this.keepAlives?.remove(this);
  }

  fail(error: unknown): void {
    const failure = toMcpError(error);
    this.finish({
      jsonrpc: '2.0',
      id: this.requestId,
      error: {
        code: Number.isSafeInteger(failure.code) ? failure.code : ErrorCode.InternalError,
        message: failure.message,
        ...(failure.data !== undefined ? { data: failure.data } : {}),
      },
    });
  }
}

function frameOf(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
