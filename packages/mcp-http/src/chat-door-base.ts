import type { TokenClaims } from '@hitl/protocol';
import type { McpSession } from '@hitl/store';
import type { Context } from 'hono';
import { type ChatSessionDeps, ChatSessions } from './chat-sessions.js';
import { isResponseOnly } from './json-rpc-responses.js';
import type { EndpointSessions } from './sessions.js';
import { sessionIdOf } from './sessions.js';

/**
 * What the node's and the approval proxy's chat doors share: the session check, opening a session at
 * an `initialize` declaring elicitation, `DELETE /mcp`, and which POSTs the door takes itself. Each
 * door says how it takes the responses (`take`).
 */
export abstract class ChatDoorBase implements EndpointSessions<McpSession> {
  protected readonly sessions: ChatSessions;

  constructor(deps: ChatSessionDeps) {
    this.sessions = new ChatSessions(deps);
  }

  /**
   * The live session a request names (`Mcp-Session-Id`), or undefined when it names none: a request
   * without the header costs this one lookup and no store read.
   * @throws HitlError `not_found` (HTTP 404) for an unknown, expired or another user's session
   */
  admit(c: Context, claims: TokenClaims): Promise<McpSession> | undefined {
    const sessionId = sessionIdOf(c);
    return sessionId === undefined ? undefined : this.sessions.admit(sessionId, claims.sub);
  }

  /** At an `initialize` declaring elicitation: the session, stored before the response leaves. */
  open(body: unknown, claims: TokenClaims): Promise<McpSession | undefined> {
    return this.sessions.open(body, claims);
  }

  /** `DELETE /mcp` with a live session: ends it, 204. */
  end(c: Context, session: McpSession): Promise<Response> {
    return this.sessions.end(c, session);
  }

  /**
   * True for a POST holding only JSON-RPC responses that this door takes: in a session, or naming
   * one of our elicitation ids (anything else goes to the SDK). Synchronous, and false at the first
   * look for any request.
   */
  takes(body: unknown, session: McpSession | undefined): boolean {
    return isResponseOnly(body) && (session !== undefined || JSON.stringify(body).includes('"hitl-e1.'));
  }

  /** Takes each response of a POST that {@link takes} (any node), then 202. */
  abstract take(
    c: Context,
    body: unknown,
    claims: TokenClaims,
    session: McpSession | undefined,
  ): Promise<Response>;
}
