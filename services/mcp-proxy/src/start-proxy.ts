import type { Server as HttpServer } from 'node:http';
import { HeldCalls, logAmbiguousCancel } from '@hitl/mcp-http';
import { listenOn } from '@hitl/protocol';
import { createAdaptorServer } from '@hono/node-server';
import { cancelHeld, createProxyApp } from './http/app.js';
import { buildProxyCore, type ProxyCore, type ProxyOptions } from './proxy-core.js';
import { VERSION } from './version.js';

/** Largest `/mcp` request body: the SDK transport's own default (tool arguments can be large). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface RunningProxy {
  url: string;
  port: number;
  core: ProxyCore;
  /** Cancels calls in flight, stops listening, closes the backend and the store. */
  close(): Promise<void>;
}

/**
 * Starts the approval proxy as stateless Streamable HTTP on `config.host:config.port` at `/mcp`,
 * with agent bearer tokens and the Host/Origin guard of the inquiry service.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const core = await buildProxyCore(options);
  if (!core.tokens) {
    await core.close();
    throw new Error('the HTTP proxy needs HITL_SECRET (or the local state folder) to check agent tokens');
  }
  const heldCalls = new HeldCalls(() => new AbortController());
  // Cancels that reached another proxy node first.
  await core.calls.store.onCancel((key) => {
    if (cancelHeld(heldCalls, key) === 'ambiguous') logAmbiguousCancel(core.calls.logger, undefined);
  });
  const app = createProxyApp({
    calls: core.calls,
    tokens: core.tokens,
    hostPolicy: { allowedHosts: options.config.allowedHosts, allowedOrigins: options.config.allowedOrigins },
    heldCalls,
    version: VERSION,
    maxBodyBytes: MAX_BODY_BYTES,
    ...(core.chat ? { chat: core.chat } : {}),
  });
  const httpServer = createAdaptorServer({ fetch: app.fetch }) as HttpServer;
  const { port, url } = await listenOn(httpServer, options.config.port, options.config.host);
  options.logger.info(
    { url: `${url}/mcp`, backend: core.backend.name, mode: options.policy.mode },
    'proxy listening',
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    core,
    close: () => {
      closing ??= (async () => {
        heldCalls.releaseAll(new Error('proxy shutting down'));
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
        await core.close();
      })();
      return closing;
    },
  };
}
