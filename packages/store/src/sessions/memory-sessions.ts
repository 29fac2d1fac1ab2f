import { MAX_SESSIONS_PER_USER, type McpSession, type McpSessionStore } from './sessions.js';

/** Sessions of one process (`HITL_STORE=memory`): gone on restart, like its inquiries. */
export class MemorySessionStore implements McpSessionStore {
  private readonly sessions = new Map<string, McpSession>();

  constructor(private readonly now: () => number = Date.now) {}

  async create(session: McpSession): Promise<void> {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
    this.sessions.set(session.sessionId, { ...session });
    const mine = [...this.sessions.values()]
      .filter((s) => s.userId === session.userId)
      .sort((a, b) => a.expiresAt - b.expiresAt);
    for (const s of mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_USER)))
      this.sessions.delete(s.sessionId);
  }

  async get(sessionId: string, userId: string): Promise<McpSession | null> {
    const session = this.live(sessionId, userId);
    return session ? { ...session } : null;
  }

  async renew(sessionId: string, userId: string, expiresAt: number): Promise<boolean> {
    const session = this.live(sessionId, userId);
    if (session) session.expiresAt = expiresAt;
    return session !== undefined;
  }

  async remove(sessionId: string, userId: string): Promise<boolean> {
    if (!this.live(sessionId, userId)) return false;
    return this.sessions.delete(sessionId);
  }

  async close(): Promise<void> {
    this.sessions.clear();
  }

  private live(sessionId: string, userId: string): McpSession | undefined {
    const session = this.sessions.get(sessionId);
    return session && session.userId === userId && session.expiresAt > this.now() ? session : undefined;
  }
}
