import { describe, expect, it } from 'vitest';
import { describeDepthProblem, jsonDepthProblem, LIMITS } from '../src/index.js';

const nested = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

describe('jsonDepthProblem', () => {
  it('passes exactly the limit and names the path past it', () => {
    expect(jsonDepthProblem(nested(LIMITS.jsonDepth))).toBeNull();
    expect(jsonDepthProblem(nested(LIMITS.jsonDepth + 1))?.path).toHaveLength(LIMITS.jsonDepth);
    expect(jsonDepthProblem('text')).toBeNull();
    expect(jsonDepthProblem([[[1]]], 2)).toEqual({ path: [0, 0], maxDepth: 2 });
  });

  it('walks 20,000 levels without overflowing the stack', () => {
    expect(jsonDepthProblem(nested(20_000))?.maxDepth).toBe(64);
  });

  it('names the field a person can act on', () => {
    const message = { jsonrpc: '2.0', params: { arguments: { context: nested(100) } } };
    expect(describeDepthProblem(jsonDepthProblem(message) ?? { path: [], maxDepth: 0 })).toBe(
      'params.arguments.context… is nested deeper than 64 levels',
    );
    const batch = [{ id: 1 }, { params: { arguments: { context: nested(100) } } }];
    expect(describeDepthProblem(jsonDepthProblem(batch) ?? { path: [], maxDepth: 0 })).toMatch(
      /^\[1\]\.params\.arguments\.context… is nested/,
    );
  });
});
