import type { ChatTokens } from '@hitl/auth';
import { ChatDoorBase } from '@hitl/mcp-http';
import type { TokenClaims } from '@hitl/protocol';
import type { McpSession, McpSessionStore } from '@hitl/store';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock } from '../core/ports.js';
import type { CallContext } from '../mcp/call-context.js';
import type { ChatAskDeps, ChatCall, HeldStream } from './chat-ask.js';
import { takeResponses } from './response-intake.js';

/** What the chat needs from the node. */
export interface ChatDoorDeps {
  sessions: McpSessionStore;
  tokens: ChatTokens;
  service: InquiryService;
  clock: Clock;
  logger: Logger;
  /** How long an unused session lives (`HITL_MCP_SESSION_TTL_MS`, 24 h by default). */
  sessionTtlMs: number;
  /** `HITL_ELICITATION` is not `off`. */
  elicitation: boolean;
  /** Where people reach the web terminal. */
  publicUrl: () => string;
}

/** How a held call's stream takes a message: the direct path's own, or the SDK transport's. */
export type StreamWriter = (extra: HeldStream, message: JSONRPCMessage) => void;

/** A direct call writes on its own stream (`DirectRun.sendNotification` frames any message). */
export const directWriter: StreamWriter = (extra, message) => {
  void extra.sendNotification(message as never);
};

/**
 * The `/mcp` route's hooks for the agent's chat, in one object: the session check, opening a
 * session at `initialize`, `DELETE /mcp`, the intake of elicitation responses on any node, and the
 * chat a held call asks in.
 */
export class ChatDoor extends ChatDoorBase {
  private readonly asking: ChatAskDeps;

  constructor(private readonly deps: ChatDoorDeps) {
    super({ sessions: deps.sessions, clock: deps.clock, logger: deps.logger, ttlMs: deps.sessionTtlMs });
    const { logger } = deps;
    this.asking = { tokens: deps.tokens, enabled: deps.elicitation, publicUrl: deps.publicUrl, logger };
  }

  /** Takes each response of a POST that {@link takes} (any node), then 202. */
  async take(
    c: Context,
    body: unknown,
    claims: TokenClaims,
    session: McpSession | undefined,
  ): Promise<Response> {
    await takeResponses(this.deps, body, claims, session);
    return c.body(null, 202);
  }

  /** The chat a call in `session` may ask in, writing on its stream with `write`. */
  chatFor(session: McpSession, write: StreamWriter): ChatCall {
    return { deps: this.asking, session, write };
  }

  /** The context of a call in `session`: the caller's own, with the chat it may ask in. */
  withChat(ctx: CallContext, session: McpSession, write: StreamWriter): CallContext {
    return { ...ctx, chat: this.chatFor(session, write) };
  }
}
