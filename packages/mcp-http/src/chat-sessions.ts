import { HitlError, showInvisible, type TokenClaims } from '@hitl/protocol';
import { type McpSession, type McpSessionStore, newSessionId } from '@hitl/store';
import {
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { LogSink } from './log-sink.js';

/*
 * MCP sessions where they buy something: only a client whose `initialize` declares
 * `capabilities.elicitation` gets one (the node can then put questions into its chat). The session
 * is written to the store before the initialize response leaves (the client's next POST may reach
 * another node); every request that names one is checked against the store and the token's user.
 * A request without the header costs one header lookup, nothing more.
 */

/** Protocol versions with sessions and server-to-client requests, so with elicitation. */
const ELICITING_VERSIONS = new Set(['2025-06-18', '2025-11-25']);

/** A session's expiry moves forward at most this often (one write a minute per busy session; a quarter of a shorter lifetime). */
const RENEW_EVERY_MS = 60_000;

export interface ChatSessionDeps {
  sessions: McpSessionStore;
  clock: { now(): number };
  logger: LogSink;
  /** How long a session lives unused (24 h by default). */
  ttlMs: number;
}

/** A client's name as a device name shows it: invisible characters as escapes, at most 100 characters. */
function bounded(text: string, max: number): string {
  const shown = showInvisible(text);
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

export class ChatSessions {
  constructor(private readonly deps: ChatSessionDeps) {}

  /**
   * The live session `sessionId` names, when the token's user `userId` opened it: otherwise HTTP 404
   * (an unknown, expired or another user's session read alike). Its expiry moves to a full TTL from
   * now (at most once a minute).
   * @throws HitlError `not_found`
   */
  async admit(sessionId: string, userId: string): Promise<McpSession> {
    const session = sessionId.length <= 128 ? await this.deps.sessions.get(sessionId, userId) : null;
    if (!session) {
      this.deps.logger.info({ userId }, 'refused an unknown, expired or foreign MCP session id (404)');
      throw new HitlError('not_found', 'Session not found: initialize again without a session id');
    }
    const now = this.deps.clock.now();
    const { ttlMs } = this.deps;
    if (session.expiresAt - now < ttlMs - Math.min(RENEW_EVERY_MS, ttlMs / 4)) {
      const expiresAt = now + ttlMs;
      await this.deps.sessions.renew(sessionId, userId, expiresAt);
      session.expiresAt = expiresAt;
    }
    return session;
  }

  /**
   * For an `initialize` that declares elicitation (under a version that has it): the new session,
   * written to the store before this returns. Undefined for every other body (no session).
   */
  async open(body: unknown, claims: TokenClaims): Promise<McpSession | undefined> {
    if ((body as { method?: unknown } | null)?.method !== 'initialize') return undefined;
    const request = InitializeRequestSchema.safeParse(body);
    if (!request.success) return undefined;
    const { protocolVersion: asked, capabilities, clientInfo } = request.data.params;
    const elicitation = capabilities.elicitation;
    if (typeof elicitation !== 'object' || elicitation === null) return undefined;
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
    if (!ELICITING_VERSIONS.has(protocolVersion)) return undefined;
    const now = this.deps.clock.now();
    const declared = elicitation as { form?: unknown; url?: unknown };
    const session: McpSession = {
      sessionId: newSessionId(),
      userId: claims.sub,
      protocolVersion,
      clientInfo: {
        name: bounded(clientInfo.name, 100),
        version: bounded(clientInfo.version, 100),
        ...(clientInfo.title ? { title: bounded(clientInfo.title, 200) } : {}),
      },
      // Only what the node acts on: `elicitation: {}` is form mode, as the spec reads it.
      capabilities: {
        elicitation: {
          ...(declared.form !== undefined || declared.url === undefined ? { form: {} } : {}),
          ...(declared.url !== undefined ? { url: {} } : {}),
        },
      },
      createdAt: now,
      expiresAt: now + this.deps.ttlMs,
    };
    await this.deps.sessions.create(session);
    this.deps.logger.info(
      { userId: claims.sub, client: session.clientInfo.name, protocolVersion },
      'MCP session opened for a client that takes elicitation',
    );
    return session;
  }

  /** `DELETE /mcp` naming a session (the check has admitted it): ends it, 204. */
  async end(c: Context, session: McpSession): Promise<Response> {
    await this.deps.sessions.remove(session.sessionId, session.userId);
    return c.body(null, 204);
  }
}

/** The elicitation modes a session's client declared. */
export function sessionModes(session: McpSession): { form: boolean; url: boolean } {
  const elicitation = session.capabilities.elicitation as { form?: unknown; url?: unknown } | undefined;
  return { form: elicitation?.form !== undefined, url: elicitation?.url !== undefined };
}
