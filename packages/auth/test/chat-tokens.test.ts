import { describe, expect, it } from 'vitest';
import { ChatTokens, sessionTag } from '../src/index.js';

const SECRET = 'a-secret-that-is-long-enough-for-these-tests';

describe('chat tokens', () => {
  const tokens = new ChatTokens(SECRET);
  const claims = {
    inquiryId: 'inq-1',
    userId: 'alice',
    sessionTag: sessionTag('session-1'),
    mode: 'form' as const,
  };

  it('an elicitation id made on one node reads back on another node with the same secret', () => {
    const id = tokens.elicitationId(claims);
    expect(new ChatTokens(SECRET).readElicitationId(id)).toEqual(claims);
    expect(tokens.elicitationId(claims)).not.toBe(id);
  });

  it('refuses an id signed with another secret, an edited one, a card token and anything else', () => {
    const id = tokens.elicitationId(claims);
    expect(new ChatTokens(`${SECRET}-other`).readElicitationId(id)).toBeNull();
    const [kind, payload, mac] = id.split('.') as [string, string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), u: 'mallory' }),
    ).toString('base64url');
    expect(tokens.readElicitationId(`${kind}.${forged}.${mac}`)).toBeNull();
    expect(
      tokens.readElicitationId(
        tokens.cardToken({ inquiryId: 'inq-1', userId: 'alice', expiresAt: Date.now() + 1000 }),
      ),
    ).toBeNull();
    for (const other of [42, null, '', 'hitl-e1.', 'hitl-e1.x.y', `${id}x`, 'x'.repeat(5000)])
      expect(tokens.readElicitationId(other)).toBeNull();
  });

  it('a card token reads back until it expires', () => {
    const now = Date.now();
    const token = tokens.cardToken({ inquiryId: 'inq-2', userId: 'bob', expiresAt: now + 1000 });
    expect(tokens.readCardToken(token, now)).toEqual({
      inquiryId: 'inq-2',
      userId: 'bob',
      expiresAt: now + 1000,
    });
    expect(tokens.readCardToken(token, now + 1000)).toBeNull();
    expect(new ChatTokens(`${SECRET}-other`).readCardToken(token, now)).toBeNull();
  });

  it('a session tag is short, stable and tells sessions apart', () => {
    expect(sessionTag('s-1')).toBe(sessionTag('s-1'));
    expect(sessionTag('s-1')).not.toBe(sessionTag('s-2'));
    expect(sessionTag('s-1')).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});
