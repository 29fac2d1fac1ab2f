import { describe, expect, it } from 'vitest';
import { listenUrl } from '../src/index.js';

describe('listenUrl', () => {
  it('shows the wildcard as loopback and brackets IPv6', () => {
    expect(listenUrl('0.0.0.0', 8080)).toBe('http://127.0.0.1:8080');
    expect(listenUrl('127.0.0.1', 1)).toBe('http://127.0.0.1:1');
    expect(listenUrl('::1', 3000)).toBe('http://[::1]:3000');
    expect(listenUrl('hitl.example', 80)).toBe('http://hitl.example:80');
  });
});
