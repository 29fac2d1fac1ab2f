import { randomBytes } from 'node:crypto';

/**
 * MCP sessions, only for clients that declared `capabilities.elicitation` at `initialize` (the node
 * can put questions into their chat). A session is what that `initialize` said, kept where every
 * node reads it: any node serves the client's next POST, and any node takes the response to an
 * elicitation another node sent.
 */
export interface McpSession {
  /** Unguessable ({@link newSessionId}); the `Mcp-Session-Id` header. */
  sessionId: string;
  /** The agent token's subject that opened it: another user's token never finds it. */
  userId: string;
  /** The protocol version `initialize` settled on. */
  protocolVersion: string;
  /** The client's `clientInfo` (bounded by the node before it is kept). */
  clientInfo: { name: string; version: string; title?: string };
  /** The client's declared capabilities, as sent (bounded by the node). */
  capabilities: Record<string, unknown>;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms from which the session is gone; moved forward by {@link McpSessionStore.renew}. */
  expiresAt: number;
}

/**
 * Most live sessions one user keeps; a new one beyond it ends the one closest to expiry (the least
 * recently used), so a token cannot make the store hold sessions without bound.
 */
export const MAX_SESSIONS_PER_USER = 100;

/** Where MCP sessions live: Redis (every node), the node's state file, or memory. */
export interface McpSessionStore {
  /** Keeps the session until its `expiresAt`; the user's oldest beyond {@link MAX_SESSIONS_PER_USER} end. */
  create(session: McpSession): Promise<void>;
  /** The session when it exists, has not expired and belongs to `userId`; null otherwise (alike). */
  get(sessionId: string, userId: string): Promise<McpSession | null>;
  /** Moves a live session's expiry to `expiresAt`; false when there is none (gone, or another user's). */
  renew(sessionId: string, userId: string, expiresAt: number): Promise<boolean>;
  /** Ends a session at once; false when the user has none by that id. */
  remove(sessionId: string, userId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** 24 random bytes (192 bits), base64url: visible ASCII, as the spec asks of a session id. */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

/** A stored session from its JSON; null for anything that is not one. */
export function decodeSession(json: string | null | undefined): McpSession | null {
  if (!json) return null;
  let value: Partial<McpSession>;
  try {
    value = JSON.parse(json) as Partial<McpSession>;
  } catch {
    return null;
  }
  const strings = ['sessionId', 'userId', 'protocolVersion'] as const;
  if (!strings.every((f) => typeof value[f] === 'string')) return null;
  if (typeof value.createdAt !== 'number' || typeof value.expiresAt !== 'number') return null;
  if (typeof value.clientInfo?.name !== 'string' || typeof value.capabilities !== 'object') return null;
  return value as McpSession;
}
