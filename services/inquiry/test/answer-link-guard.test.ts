import { describe, expect, it } from 'vitest';
import { linkOriginProblem } from '../src/http/answer-link-guard.js';

/** The answer link's Host / Origin rule (SECURITY.md "Answer links", Origin). */
describe('linkOriginProblem', () => {
  const policy = { allowedHosts: ['hitl.example.com'], allowedOrigins: [] };
  const check = (origin: string | undefined, site?: string, host = 'hitl.example.com') =>
    linkOriginProblem(policy, host, origin, site);

  it('admits no Origin, the page’s own origin, and loopback as every door does', () => {
    expect(check(undefined)).toBeNull();
    expect(check('https://hitl.example.com')).toBeNull();
    expect(check('https://HITL.example.com')).toBeNull();
    expect(check('http://localhost:5173')).toBeNull();
  });

  it('refuses a foreign origin, another port of the same name, and a foreign Host whatever the Origin', () => {
    expect(check('https://evil.example')).toMatch(/Origin "https:\/\/evil.example" is not allowed/);
    expect(check('https://hitl.example.com:8443')).toMatch(/not allowed/);
    expect(check('https://evil.example', undefined, 'evil.example')).toMatch(/Host "evil.example"/);
    expect(check('https://evil.example', 'same-origin', 'evil.example')).toMatch(/Host/);
  });

  it('admits Origin: null only with Sec-Fetch-Site: same-origin', () => {
    expect(check('null', 'same-origin')).toBeNull();
    for (const site of [undefined, 'cross-site', 'same-site', 'none']) {
      expect(check('null', site), site).toMatch(/only from its own page/);
    }
  });
});
