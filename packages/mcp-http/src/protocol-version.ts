import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';

/*
 * Protocol 2026-07-28 and later ("modern" MCP: no initialize, version and capabilities in every
 * request's _meta, server/discover) are refused here, before the SDK: SDK 1.x speaks up to
 * 2025-11-25 only. The refusal is the spec's own UnsupportedProtocolVersionError (HTTP 400, code
 * -32022, data {supported, requested}), listing only handshake versions, which a dual-era client
 * (SDK v2) reads as "legacy server": it falls back to initialize and goes on with 2025-11-25,
 * tasks included. A modern-only client gets an error that names the versions served.
 * docs/CLIENTS.md says why this node does not serve 2026-07-28 yet.
 */

/** The spec's code (2026-07-28 schema) for a protocol version the server does not implement. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Where a modern request carries its version in the body (2026-07-28 `_meta`). */
const META_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The protocol version a request asks for: its `MCP-Protocol-Version` header, else its body's `_meta`. */
function requestedVersion(c: Context, body: unknown): string | undefined {
  const header = c.req.header('mcp-protocol-version');
  if (header !== undefined) return header;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  const inBody = Array.isArray(body) ? undefined : meta?.[META_VERSION_KEY];
  return typeof inBody === 'string' ? inBody : undefined;
}

/**
 * The refusal for a request that asks for a protocol version this node does not serve, or
 * undefined when it may go on (no version asked: the transport assumes 2025-03-26).
 */
export function unsupportedVersion(c: Context, body: unknown): Response | undefined {
  const requested = requestedVersion(c, body);
  if (requested === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(requested)) return undefined;
  const single = Array.isArray(body) ? undefined : (body as { id?: unknown } | null);
  const id = typeof single?.id === 'string' || typeof single?.id === 'number' ? single.id : null;
  const supported = [...SUPPORTED_PROTOCOL_VERSIONS];
  return c.json(
    {
      jsonrpc: '2.0',
      id,
      error: {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message:
          `Unsupported protocol version: ${requested}. This server speaks MCP ${supported.join(', ')} ` +
          '(with the initialize handshake; tasks as in 2025-11-25).',
        data: { supported, requested },
      },
    },
    400,
  );
}
