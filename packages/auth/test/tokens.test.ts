import { describe, expect, it } from 'vitest';
import { TokenService } from '../src/index.js';

describe('TokenService', () => {
  it('remembers a verified token only until it expires', async () => {
    const tokens = new TokenService('a-secret-that-is-long-enough-for-hs256');
    const token = await tokens.sign({ sub: 'u1', role: 'agent' }, { expiresIn: '1s' });
    expect(await tokens.verify(token)).toMatchObject({ sub: 'u1', role: 'agent' });
    expect(await tokens.verify(token)).toMatchObject({ sub: 'u1', role: 'agent' });
    // time itself is under test: the 1 s token expires (exp has whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await tokens.verify(token)).toBeNull();
  });

  it('rejects a token signed with another secret, also after accepting its own', async () => {
    const ours = new TokenService('a-secret-that-is-long-enough-for-hs256');
    const theirs = new TokenService('another-secret-that-is-long-enough-too');
    const own = await ours.sign({ sub: 'u1', role: 'device' });
    const forged = await theirs.sign({ sub: 'u1', role: 'device' });
    expect(await ours.verify(own)).not.toBeNull();
    expect(await ours.verify(forged)).toBeNull();
    expect(await ours.verify(`${own}x`)).toBeNull();
  });
});
