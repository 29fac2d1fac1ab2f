import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_WIRE,
  type ErrorCode,
  type ErrorWire,
  JSON_RPC,
  retryAfterSeconds,
} from '../src/index.js';

describe('the error table', () => {
  it('gives every error code an HTTP error status and a JSON-RPC error code, and names no other code', () => {
    expect(Object.keys(ERROR_WIRE).sort()).toEqual([...ERROR_CODES].sort());
    const rpcCodes = new Set<number>(Object.values(JSON_RPC));
    for (const code of ERROR_CODES) {
      const wire = ERROR_WIRE[code];
      expect(wire.http, code).toBeGreaterThanOrEqual(400);
      expect(wire.http, code).toBeLessThan(600);
      expect(rpcCodes.has(wire.jsonRpc), code).toBe(true);
    }
  });

  it('is a compile error without both forms for a code (checked by `npm run typecheck`)', () => {
    // @ts-expect-error a code without its JSON-RPC code does not type-check
    const partial: Record<ErrorCode, ErrorWire> = { ...ERROR_WIRE, internal: { http: 500 } };
    expect(partial.internal.http).toBe(500);
  });

  it('keeps the codes clients already read', () => {
    expect(ERROR_WIRE.rate_limited).toEqual({ http: 429, jsonRpc: -32000 });
    expect(ERROR_WIRE.too_many_pending).toEqual({ http: 429, jsonRpc: -32603 });
    expect(ERROR_WIRE.payload_too_large).toEqual({ http: 413, jsonRpc: -32600 });
    expect(ERROR_WIRE.invalid_input).toEqual({ http: 400, jsonRpc: -32602 });
    expect(ERROR_WIRE.unavailable).toEqual({ http: 503, jsonRpc: -32603 });
  });
});

describe('retryAfterSeconds', () => {
  it('rounds a wait up to whole seconds', () => {
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(59_999)).toBe(60);
  });

  it('never says less than one second, even for a wait already over', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(-250)).toBe(1);
  });
});
