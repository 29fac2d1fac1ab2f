import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { decodeJwt } from 'jose';
import { createProxyServer } from './mcp/proxy-server.js';
import { buildProxyCore, type ProxyOptions } from './proxy-core.js';
import { VERSION } from './version.js';

export interface StdioProxyOptions extends ProxyOptions {
  /** The user whose devices approve (`--user`); else the `sub` of `agentToken`. */
  userId?: string;
  /** An agent token naming the user (`HITL_AGENT_TOKEN`); checked against the secret when there is one. */
  agentToken?: string;
}

/** The user a stdio proxy acts for: `--user`, else a valid agent token's subject. */
export async function stdioUser(
  options: StdioProxyOptions,
  verify?: (token: string) => Promise<{ sub: string; role: string } | null>,
): Promise<string> {
  if (options.userId) return options.userId;
  if (!options.agentToken) throw new Error('stdio mode needs --user <id> or HITL_AGENT_TOKEN');
  if (!verify) return String(decodeJwt(options.agentToken).sub ?? '');
  const claims = await verify(options.agentToken);
  if (!claims) throw new Error('HITL_AGENT_TOKEN is invalid or expired');
  if (claims.role !== 'agent')
    throw new Error(`HITL_AGENT_TOKEN is a ${claims.role} token; an agent token is needed`);
  return claims.sub;
}

/**
 * Serves the proxy over this process's stdin/stdout, for hosts that spawn MCP servers. One long-lived
 * server: backend notifications (list changes, resource updates, logs) pass straight through.
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<{ close(): Promise<void> }> {
  // A host spawns one stdio proxy per session, several at once on one state dir: they cannot share
  // the single-process SQLite file, so without Redis each keeps its grants and operations in memory.
  const core = await buildProxyCore({ ...options, config: { ...options.config, embeddedStore: 'memory' } });
  const userId = await stdioUser(options, core.tokens ? (t) => core.tokens!.verify(t) : undefined).catch(
    async (error) => {
      await core.close();
      throw error;
    },
  );
  const server = createProxyServer(core.calls, {
    userId,
    version: VERSION,
    withSignal: (extra, run) => run(extra.signal),
  });
  const stop = core.backend.onNotification((notification: ServerNotification) => {
    void server.notification(notification).catch(() => undefined);
  });
  await server.connect(new StdioServerTransport());
  options.logger.info({ userId, backend: core.backend.name }, 'proxy serving over stdio');
  return {
    close: async () => {
      stop();
      await server.close().catch(() => undefined);
      await core.close();
    },
  };
}
