import type { HostPolicy, TokenService } from '@hitl/auth';
import {
  asksForProgress,
  HeldCalls,
  logAmbiguousCancel,
  type McpBodyVariables,
  type McpRequest,
  mcpEndpoint,
  SseKeepAlive,
} from '@hitl/mcp-http';
import { LIMITS, type TokenClaims } from '@hitl/protocol';
import type { McpSession } from '@hitl/store';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { type ChatDoor, directWriter, type StreamWriter } from '../chat/chat-door.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { typedError } from '../http/error-handlers.js';
import type { CallContext } from './call-context.js';
import { descriptionsFor } from './descriptions.js';
import { directCallOf, KEEP_ALIVE_MS, serveDirectCall } from './direct-call.js';
import { createMcpServer } from './mcp-server.js';

/** What the route needs: what every tool call needs but the caller's own claims, and the door's parts. */
export interface McpRouteDeps extends Omit<CallContext, 'claims' | 'tokenKey' | 'chat'> {
  tokens: TokenService;
  hostPolicy: HostPolicy;
  limiter: RateLimiter;
  logger: Logger;
  version: string;
  /** Sessions, elicitation and its responses: the agent's chat as a device (chat/). */
  chatDoor: ChatDoor;
}

/**
 * A client whose own timer cut the call says so in the reason (the TS SDK sends "MCP error -32001:
 * Request timed out"). That is not a person or agent calling the question off: like a dropped
 * connection it only ends the call, and the answer is collected later (`get_inquiry`, the same
 * `idempotencyKey`). docs/CLIENTS.md says so.
 */
export function isClientTimeout(reason: string | undefined): boolean {
  return reason !== undefined && /-32001|timed? ?out/i.test(reason);
}

/**
 * `/mcp` of the node on the shared stateless endpoint (`@hitl/mcp-http`): a plain `tools/call` of our
 * tools (and a task's `tasks/result`) is served on our own SSE stream (direct-call.ts), with the
 * same frames; everything else by a fresh SDK server per request. Cancels end the held call they
 * name, here or on another node (through the store).
 */
export function mcpRoutes(deps: McpRouteDeps): Hono<{ Variables: McpBodyVariables }> {
  const keepAlive = new SseKeepAlive(KEEP_ALIVE_MS);
  const callContext = callContextOf(deps);
  return mcpEndpoint<McpSession>({
    tokens: deps.tokens,
    hostPolicy: deps.hostPolicy,
    logger: deps.logger,
    maxBodyBytes: LIMITS.bodyBytes,
    who: 'server',
    limiter: deps.limiter,
    known: typedError,
    cancel: ({ claims, tokenKey }, { requestId, reason }) => {
      if (isClientTimeout(reason))
        deps.logger.info({ requestId, reason }, 'client timed out; the inquiry stays open');
      else void cancelHeldCall(deps, claims, tokenKey, requestId);
    },
    // The agent's chat (chat/): sessions for clients that take elicitation, and the responses to
    // its elicitations, taken on any node.
    sessions: deps.chatDoor,
    direct: ({ c, body, claims, tokenKey, outgoing, session }) => {
      const direct = directCallOf(body, c.req.raw.headers);
      if (!direct) return undefined;
      // The hot path (send_inquiry, get_inquiry, a task's tasks/result): no SDK server or transport
      // is built or kept. With Node's response at hand the frames go straight to it; either way the
      // stream hears the caller leave (Node's 'close', or the web stream's cancel) and ends the wait.
      const ctx = callContext(claims, tokenKey);
      const withChat = session ? deps.chatDoor.withChat(ctx, session, directWriter) : ctx;
      return serveDirectCall(withChat, direct, keepAlive, outgoing);
    },
    server: ({ c, claims, tokenKey, session }: McpRequest<McpSession>, transport) =>
      createMcpServer({
        ...deps,
        claims,
        tokenKey,
        descriptions: descriptionsFor(new URL(c.req.url).searchParams),
        // A call in a session writes its elicitation on this request's stream, through the transport.
        ...(session ? { chat: deps.chatDoor.chatFor(session, sdkWriter(transport)) } : {}),
      }),
    // Our heartbeats already keep a progress-tracked stream busy; the SDK's keep-alive comment
    // frames would only add a timer and writes per held call. Without a progress token they stay.
    keepAliveMs: (body) => (asksForProgress(body) && deps.heartbeatMs <= KEEP_ALIVE_MS ? 0 : undefined),
  });
}

/**
 * What a tool call needs from the node and the caller. A held call keeps its `CallContext` alive,
 * so it is one object literal with every member named: a spread (of the route's ~20 deps, or of
 * these plus the caller's) gives each call's object a hidden class of its own in optimized code
 * (measured: heap per held call 14.9 → 14.3 KB; bench/results/HISTORY.md, "RSS per held call,
 * session 5"), while a literal shares one for every call.
 */
function callContextOf(deps: McpRouteDeps): (claims: TokenClaims, tokenKey: string) => CallContext {
  const { service, store, heldCalls, clock, heartbeatMs, maxWaitMs, draining, storeReady } = deps;
  const { tasks, maxAnswerWindowMs, retentionMs, cards } = deps;
  return (claims, tokenKey) => ({
    service,
    store,
    heldCalls,
    clock,
    claims,
    tokenKey,
    heartbeatMs,
    maxWaitMs,
    draining,
    storeReady,
    tasks,
    maxAnswerWindowMs,
    retentionMs,
    cards,
  });
}

/** How a call served by the SDK writes a message of its own on its request's stream (the chat's frames). */
function sdkWriter(transport: WebStandardStreamableHTTPServerTransport): StreamWriter {
  return (extra, message) => {
    void transport.send(message, { relatedRequestId: extra.requestId }).catch(() => undefined);
  };
}

async function cancelHeldCall(
  deps: McpRouteDeps,
  claims: TokenClaims,
  tokenKey: string,
  requestId: string | number,
): Promise<void> {
  const key = HeldCalls.key(tokenKey, requestId);
  const ambiguous = (calls: number) => logAmbiguousCancel(deps.logger, requestId, calls);
  try {
    // A call held here answers for itself (a task's `tasks/result`: the cancel ends that wait only, the
    // task goes on); otherwise the store knows the calls other nodes hold. Two agents on one token may
    // reuse an id: a cancel that cannot name one call cancels none, rather than another agent's question.
    const held = deps.heldCalls.get(key);
    if (held.length > 1) return ambiguous(held.length);
    const [call] = held;
    if (call && !call.cancelsInquiry) return call.controller.abort('cancelled by the caller');
    const remembered = await deps.store.recallCall(key).catch((error: unknown) => {
      if (!call) throw error;
      return null; // the store is away: the call held here is the one the cancel names
    });
    // The store names the latest call remembered with this key: another node holds a later one.
    if (call && remembered !== null && remembered !== call.inquiryId) return ambiguous(2);
    const inquiryId = call?.inquiryId ?? remembered;
    if (!inquiryId) return;
    await deps.service.settle(inquiryId, claims.sub, { type: 'cancel' });
  } catch (error) {
    deps.logger.warn({ err: error, requestId }, 'cancel failed');
  }
}
