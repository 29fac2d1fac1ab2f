import { readFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import type { Logger } from 'pino';

/**
 * The node's HTTP limits. A client has 30 s for its headers and 30 s for its whole
 * request; Node's default of 300 s let a body dripped byte by byte hold a connection for five
 * minutes. The request timer stops once the request is read, so a held `/mcp` response (up to the
 * client tier, 90 s) is never cut by it (services/cli/test/security/http-limits.test.ts holds one past it).
 * Node looks for requests past their timeouts only every {@link CHECK_INTERVAL_MS}, so the timeouts it
 * is given are that much shorter: a slow request is cut between 26 and 30 s.
 */
export const HEADERS_TIMEOUT_MS = 30_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How often Node looks for requests past their timeouts (its default, 30 s, could double them). The
 * check runs whether or not anything is connected, so it is one of an idle node's few wake-ups: every
 * 4 s, not every second (issue 41).
 */
const CHECK_INTERVAL_MS = 4_000;
/**
 * Idle keep-alive: longer than client pools (undici 4 s, browsers ~60 s) and load balancers (60 s)
 * keep idle sockets, so the server is never the side that closes a socket a client is about to
 * reuse (with Node's 5 s default a loaded machine showed `UND_ERR_SOCKET other side closed` on the
 * MCP client's next POST).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 70_000;
/** Descriptors kept free for Redis, files and the process itself below the open-file limit. */
const FD_MARGIN = 128;
/** Used when the open-file limit cannot be read (not Linux). */
const FALLBACK_OPEN_FILES = 1024;

/** The soft open-file limit of this process (`ulimit -n`), from `/proc/self/limits` on Linux. */
export function openFileLimit(readLimits = () => readFileSync('/proc/self/limits', 'utf8')): number {
  try {
    const soft = readLimits().match(/^Max open files\s+(\d+|unlimited)/m)?.[1];
    if (soft === 'unlimited') return 1_048_576;
    return soft ? Number(soft) : FALLBACK_OPEN_FILES;
  } catch {
    return FALLBACK_OPEN_FILES;
  }
}

/** `HITL_MAX_CONNECTIONS` when unset: the open-file limit less a margin (at least 16). */
export function defaultMaxConnections(limit = openFileLimit()): number {
  return Math.max(16, limit - FD_MARGIN);
}

/** Options for `http.createServer`: the timeouts above less the check interval, checked every 4 s. */
export const HTTP_SERVER_OPTIONS = {
  headersTimeout: HEADERS_TIMEOUT_MS - CHECK_INTERVAL_MS,
  requestTimeout: REQUEST_TIMEOUT_MS - CHECK_INTERVAL_MS,
  keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  connectionsCheckingInterval: CHECK_INTERVAL_MS,
} as const;

/** Applies the connection cap and keep-alive to a created server; a dropped connection is logged (at most every 10 s). */
export function applyHttpLimits(server: HttpServer, maxConnections: number, logger: Logger): void {
  server.maxConnections = maxConnections;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HTTP_SERVER_OPTIONS.headersTimeout;
  server.requestTimeout = HTTP_SERVER_OPTIONS.requestTimeout;
  let dropped = 0;
  let loggedAt = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - loggedAt < 10_000) return;
    loggedAt = now;
    logger.warn(
      { maxConnections, dropped },
      'connection cap reached (HITL_MAX_CONNECTIONS); new connections dropped',
    );
  });
}
