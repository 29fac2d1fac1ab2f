import { describe, expect, it } from 'vitest';
import { hostOriginProblem } from '../src/index.js';

const none = { allowedHosts: [], allowedOrigins: [] };
const listed = { allowedHosts: ['hitl.example.com'], allowedOrigins: ['https://app.example.com'] };

describe('hostOriginProblem', () => {
  it('passes loopback names on any port, with or without a loopback Origin', () => {
    for (const host of [
      'localhost',
      'localhost:8787',
      '127.0.0.1:1',
      '127.8.9.10',
      '[::1]:8787',
      'a.localhost:3000',
    ]) {
      expect(hostOriginProblem(none, host, undefined)).toBeNull();
    }
    expect(hostOriginProblem(none, 'localhost:8787', 'http://localhost:5173')).toBeNull();
    expect(hostOriginProblem(none, '127.0.0.1', 'https://[::1]:9')).toBeNull();
  });

  it('refuses a missing Host and a foreign one (DNS rebinding), naming the variable to set', () => {
    expect(hostOriginProblem(none, undefined, undefined)).toBe('missing Host header');
    expect(hostOriginProblem(none, 'evil.example:80', undefined)).toMatch(/HITL_ALLOWED_HOSTS/);
    expect(hostOriginProblem(none, 'localhost.evil.example', undefined)).toMatch(/not allowed/);
    expect(hostOriginProblem(none, '127.0.0.1.nip.io', undefined)).toMatch(/not allowed/);
  });

  it('refuses a foreign or malformed Origin even on a loopback Host', () => {
    expect(hostOriginProblem(none, 'localhost', 'https://evil.example')).toMatch(/HITL_ALLOWED_ORIGINS/);
    expect(hostOriginProblem(none, 'localhost', 'null')).toMatch(/not allowed/);
    expect(hostOriginProblem(none, 'localhost', 'file://localhost')).toMatch(/not allowed/);
  });

  it('passes listed hosts (with or without port) and listed origins, case-insensitively', () => {
    expect(hostOriginProblem(listed, 'HITL.example.com:443', 'https://APP.example.com')).toBeNull();
    expect(hostOriginProblem(listed, 'hitl.example.com', 'https://other.example.com')).toMatch(/Origin/);
  });
});
