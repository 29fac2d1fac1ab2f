import type { TokenClaims } from '@hitl/protocol';
import type { Context } from 'hono';

/** What the endpoint knows of a session: its id (the rest is the service's). */
export interface EndpointSession {
  sessionId: string;
}

/**
 * MCP sessions where a service keeps them (the node's: clients that take elicitation). Without
 * this part the endpoint is stateless exactly as before; with it, a request naming a session is
 * admitted first, `initialize` may open one (the endpoint sets `Mcp-Session-Id` on its response),
 * `DELETE /mcp` with a session ends it, and a POST of JSON-RPC responses may be taken by the
 * service itself. A request that names no session pays one header lookup.
 */
export interface EndpointSessions<S extends EndpointSession = EndpointSession> {
  /**
   * The live session the request names (`Mcp-Session-Id`), or undefined (not a promise) when it
   * names none.
   * @throws HitlError (`not_found`: HTTP 404) for an unknown, expired or another user's session
   */
  admit(c: Context, claims: TokenClaims): Promise<S> | undefined;
  /** At `initialize`: the session it opens, stored before this resolves; undefined for none. */
  open(body: unknown, claims: TokenClaims): Promise<S | undefined>;
  /** `DELETE /mcp` with an admitted session. */
  end(c: Context, session: S): Promise<Response>;
  /** True when the service takes this body itself (responses to its own server-to-client requests). */
  takes(body: unknown, session: S | undefined): boolean;
  /** Takes a body {@link takes} said yes to (the POST's answer, 202). */
  take(c: Context, body: unknown, claims: TokenClaims, session: S | undefined): Promise<Response>;
}

/** The header, as the Streamable HTTP transport spells it (lower case, as Node keeps header names). */
export const SESSION_HEADER = 'mcp-session-id';

/**
 * The `Mcp-Session-Id` a request carries, if any. Read from Node's own header object when the
 * request came through `@hono/node-server` (a property lookup, ~10 ns), not through the web
 * `Headers` (about 1 µs a lookup on Node 20): every sessionless `POST /mcp` asks this once.
 */
export function sessionIdOf(c: Context): string | undefined {
  const incoming = (
    c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined
  )?.incoming;
  if (!incoming) return c.req.header(SESSION_HEADER);
  const value = incoming.headers[SESSION_HEADER];
  return Array.isArray(value) ? value[0] : value;
}
