import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../src/core/rate-limit.js';
import { messageCount } from '../src/mcp/mcp-body.js';

describe('rate limit points', () => {
  it('spends a cost at once: a batch over the budget is refused as a whole', async () => {
    const limiter = createRateLimiter(5);
    expect((await limiter.consume('a', 5)).ok).toBe(true);
    expect((await limiter.consume('a')).ok).toBe(false);
    expect((await limiter.consume('b', 6)).ok).toBe(false);
    // A refused request still counts, like a refused single request always did.
    expect((await limiter.consume('b')).ok).toBe(false);
  });

  it('counts one point per JSON-RPC message in a body', () => {
    expect(messageCount({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(1);
    expect(messageCount(Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id })))).toBe(100);
    expect(messageCount([])).toBe(1);
    expect(messageCount(undefined)).toBe(1);
  });
});
