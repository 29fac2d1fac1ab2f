import { describe, expect, it } from 'vitest';
import { LinkTokens, TokenService } from '../src/index.js';

const SECRET = 'a-secret-that-is-long-enough-for-hs256-tokens';

describe('answer link tokens', () => {
  const links = new LinkTokens(SECRET);
  const tokens = new TokenService(SECRET);
  const claims = {
    userId: 'ann',
    inquiryId: 'inq_1',
    channel: 'email' as const,
    expiresAt: Date.now() + 60_000,
  };

  it('round-trips the inquiry, user and channel, with an id of its own per link', async () => {
    const [a, b] = [await links.sign(claims), await links.sign(claims)];
    const verified = await links.verify(a);
    expect(verified).toMatchObject({ userId: 'ann', inquiryId: 'inq_1', channel: 'email' });
    expect(verified === 'expired' || verified === null ? '' : verified.linkId).not.toBe(
      ((await links.verify(b)) as { linkId: string }).linkId,
    );
  });

  it('says expired for a genuine link past its time, and null for forged or foreign ones', async () => {
    expect(await links.verify(await links.sign({ ...claims, expiresAt: Date.now() - 2000 }))).toBe('expired');
    const link = await links.sign(claims);
    expect(await new LinkTokens(`${SECRET}-other`).verify(link)).toBeNull();
    expect(await links.verify(`${link.slice(0, -3)}abc`)).toBeNull();
    expect(await links.verify('not a token')).toBeNull();
  });

  it('never crosses over with bearer tokens, either way', async () => {
    const bearer = await tokens.sign({ sub: 'ann', role: 'device' });
    expect(await links.verify(bearer)).toBeNull();
    expect(await tokens.verify(await links.sign(claims))).toBeNull();
  });
});
