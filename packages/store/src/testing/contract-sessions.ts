import { describe, expect, it } from 'vitest';
import {
  MAX_SESSIONS_PER_USER,
  type McpSession,
  type McpSessionStore,
  newSessionId,
} from '../sessions/sessions.js';
import { openFixtures, sleep } from './fixtures.js';

/** Two handles on one backend (two nodes' views of Redis; one object twice in memory or SQLite). */
export interface SessionFixture {
  writer: McpSessionStore;
  reader: McpSessionStore;
  cleanup(): Promise<void>;
}

export type MakeSessions = () => Promise<SessionFixture>;

/** A session of `userId` that declared form elicitation, living `lifeMs` from now. */
export function sampleSession(
  userId: string,
  lifeMs = 60_000,
  overrides: Partial<McpSession> = {},
): McpSession {
  const now = Date.now();
  return {
    sessionId: newSessionId(),
    userId,
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'contract-client', version: '1.0.0' },
    capabilities: { elicitation: { form: {} } },
    createdAt: now,
    expiresAt: now + lifeMs,
    ...overrides,
  };
}

/**
 * The behaviour every `McpSessionStore` must show, as a vitest suite (real time: expiry is measured
 * in hundreds of ms, because Redis expires keys on its own clock).
 */
export function runSessionContract(name: string, make: MakeSessions): void {
  describe(`McpSessionStore contract: ${name}`, () => {
    const open = openFixtures(make);

    it('a created session is read back whole, through another handle', async () => {
      const { writer, reader } = await open();
      const session = sampleSession('user-a');
      await writer.create(session);
      const read = await reader.get(session.sessionId, 'user-a');
      expect(read).toMatchObject({ ...session, expiresAt: expect.any(Number) });
      expect(Math.abs((read?.expiresAt ?? 0) - session.expiresAt)).toBeLessThan(1000);
    });

    it("another user's session id and an unknown one are both not found, and cannot be renewed or ended", async () => {
      const { writer, reader } = await open();
      const session = sampleSession('user-a');
      await writer.create(session);
      expect(await reader.get(session.sessionId, 'user-b')).toBeNull();
      expect(await reader.get(newSessionId(), 'user-a')).toBeNull();
      expect(await reader.renew(session.sessionId, 'user-b', Date.now() + 120_000)).toBe(false);
      expect(await reader.remove(session.sessionId, 'user-b')).toBe(false);
      expect(await reader.get(session.sessionId, 'user-a')).not.toBeNull();
    });

    it('an expired session is not found and cannot be renewed', async () => {
      const { writer, reader } = await open();
      const session = sampleSession('user-a', 300);
      await writer.create(session);
      expect(await reader.get(session.sessionId, 'user-a')).not.toBeNull();
      await sleep(600); // time itself is under test: the session's 300 ms lifetime passes
      expect(await reader.get(session.sessionId, 'user-a')).toBeNull();
      expect(await reader.renew(session.sessionId, 'user-a', Date.now() + 60_000)).toBe(false);
      expect(await reader.get(session.sessionId, 'user-a')).toBeNull();
    });

    it('a renewal keeps a session past its first expiry, as every handle sees', async () => {
      const { writer, reader } = await open();
      const session = sampleSession('user-a', 400);
      await writer.create(session);
      const until = Date.now() + 60_000;
      expect(await reader.renew(session.sessionId, 'user-a', until)).toBe(true);
      await sleep(700); // time itself is under test: past the first 400 ms expiry
      const read = await writer.get(session.sessionId, 'user-a');
      expect(read?.sessionId).toBe(session.sessionId);
      expect(Math.abs((read?.expiresAt ?? 0) - until)).toBeLessThan(1000);
    });

    it('a removed session is gone at once on every handle', async () => {
      const { writer, reader } = await open();
      const session = sampleSession('user-a');
      await writer.create(session);
      expect(await reader.remove(session.sessionId, 'user-a')).toBe(true);
      expect(await writer.get(session.sessionId, 'user-a')).toBeNull();
      expect(await writer.remove(session.sessionId, 'user-a')).toBe(false);
    });

    it(`keeps at most ${MAX_SESSIONS_PER_USER} per user: the one closest to expiry goes first`, async () => {
      const { writer, reader } = await open();
      const base = Date.now() + 60_000;
      const made: McpSession[] = [];
      for (let i = 0; i <= MAX_SESSIONS_PER_USER; i += 1) {
        const session = sampleSession('user-cap', 0, { expiresAt: base + i * 10 });
        made.push(session);
        await writer.create(session);
      }
      const other = sampleSession('user-other');
      await writer.create(other);
      const first = made[0] as McpSession;
      const second = made[1] as McpSession;
      const last = made.at(-1) as McpSession;
      expect(await reader.get(first.sessionId, 'user-cap')).toBeNull();
      expect(await reader.get(second.sessionId, 'user-cap')).not.toBeNull();
      expect(await reader.get(last.sessionId, 'user-cap')).not.toBeNull();
      expect(await reader.get(other.sessionId, 'user-other')).not.toBeNull();
    });
  });
}
