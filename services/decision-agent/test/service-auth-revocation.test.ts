import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { checkServiceToken } from '../src/index.js';

const SECRET = 'decision-test-secret-long-enough-for-hs256';
const bearer = async (jti: string) =>
  `Bearer ${await sign({ sub: 'hitl-node', role: 'ops', iss: 'hitl', jti }, SECRET, 'HS256')}`;

describe('the decision service honours revocations', () => {
  it('refuses a revoked ops token as unauthorized and admits the others', async () => {
    const isRevoked = (claims: { jti?: string }) => claims.jti === 'gone';
    expect(await checkServiceToken(await bearer('gone'), SECRET, isRevoked)).toMatchObject({
      code: 'unauthorized',
    });
    expect(await checkServiceToken(await bearer('kept'), SECRET, isRevoked)).toBeNull();
  });
});
