import type { HostPolicy, TokenService } from '@hitl/auth';
import { HeldCalls, jsonRpcError, jsonRpcErrorOf, logAmbiguousCancel, mcpEndpoint } from '@hitl/mcp-http';
import { ERROR_WIRE, HitlError } from '@hitl/protocol';
import { Hono } from 'hono';
import type { ProxyChatDoor } from '../chat/chat-door.js';
import type { CallDeps } from '../mcp/call-deps.js';
import { createProxyServer } from '../mcp/proxy-server.js';

/** The calls this proxy node runs: their work listens to an `AbortSignal`. */
export type ProxyHeldCalls = HeldCalls<AbortController>;

/** Why an agent's call was aborted (the reason every node gives the work it cancels). */
export const CANCELLED = 'cancelled by the agent';

/** Aborts the call held here under `key` for the agent's cancel (none when the key names two). */
export function cancelHeld(heldCalls: ProxyHeldCalls, key: string): 'cancelled' | 'none' | 'ambiguous' {
  return heldCalls.cancel(key, new Error(CANCELLED));
}

export interface ProxyAppDeps {
  calls: CallDeps;
  tokens: TokenService;
  hostPolicy: HostPolicy;
  heldCalls: ProxyHeldCalls;
  version: string;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** The agent's chat (policy `approveInChat`); absent: `/mcp` is stateless. */
  chat?: ProxyChatDoor;
}

/**
 * The proxy's HTTP surface: `/mcp` on the shared stateless endpoint (`@hitl/mcp-http`, agent tokens),
 * and open `/healthz` and `/readyz` (the backend connection is up).
 */
export function createProxyApp(deps: ProxyAppDeps): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    deps.calls.backend.closed()
      ? c.json({ status: 'unavailable', reason: 'the backend connection is closed' }, 503)
      : c.json({ status: 'ready' }),
  );
  const { logger } = deps.calls;
  const { chat } = deps;
  const mcp = mcpEndpoint({
    tokens: deps.tokens,
    hostPolicy: deps.hostPolicy,
    logger,
    maxBodyBytes: deps.maxBodyBytes,
    who: 'proxy',
    cancel: ({ tokenKey }, { requestId }) => {
      const key = HeldCalls.key(tokenKey, requestId);
      const outcome = cancelHeld(deps.heldCalls, key);
      if (outcome === 'ambiguous') logAmbiguousCancel(logger, requestId);
      // Not running here: the call may be on another proxy node; every node hears the relay.
      if (outcome === 'none') {
        deps.calls.store.publishCancel(key).catch((error: unknown) => {
          logger.warn({ err: error }, 'cancel not relayed to the other proxy nodes');
        });
      }
    },
    // Sessions only for the agent's chat: clients that declare elicitation, when a tool may use it.
    ...(chat ? { sessions: chat } : {}),
    // Closing the per-request server never cancels the call's work (that listens to held calls only).
    server: ({ claims, tokenKey, session }, transport) =>
      createProxyServer(deps.calls, {
        userId: claims.sub,
        version: deps.version,
        withSignal: (extra, run) =>
          deps.heldCalls.run(HeldCalls.key(tokenKey, extra.requestId), (controller) =>
            run(controller.signal),
          ),
        // A call in a session writes its elicitation and its withdrawal on its own stream.
        ...(chat && session
          ? {
              chatFor: (extra) =>
                chat.approvalFor(session, claims.sub, (message) => {
                  void transport.send(message, { relatedRequestId: extra.requestId }).catch(() => undefined);
                }),
            }
          : {}),
      }),
  });
  app.route('/mcp', mcp);
  app.notFound((c) =>
    c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}` } }, 404),
  );
  app.onError((error, c) => {
    if (error instanceof HitlError) return jsonRpcErrorOf(c, error);
    logger.error({ err: error, path: c.req.path }, 'request failed');
    return jsonRpcError(c, ERROR_WIRE.internal.http, ERROR_WIRE.internal.jsonRpc, 'internal error');
  });
  return app;
}
