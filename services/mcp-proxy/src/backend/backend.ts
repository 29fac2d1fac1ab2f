import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ServerCapabilities,
  type ServerNotification,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ToolHints } from '../policy/gate.js';
import { type BackendSpec, backendEnv, backendId, backendName } from './backend-spec.js';
import { deliverProgressBeforeResults } from './progress-order.js';

/** One connection to the backend, shared by every downstream request of this proxy process. */
export interface Backend {
  /** Part of every approval digest (`cmd:<command>` or `url:<url>`). */
  id: string;
  /** What the human sees as the server. */
  name: string;
  client: Client;
  capabilities: ServerCapabilities;
  instructions?: string;
  /** The backend's annotations for a tool (refreshes the cached list once for a tool it has not seen). */
  hints(tool: string): Promise<ToolHints | undefined>;
  /** The tool's input schema from the backend's last `tools/list` (after `hints` for that tool). */
  inputSchema(tool: string): Record<string, unknown> | undefined;
  /** Remembers annotations from a `tools/list` page the proxy passed through. */
  remember(tools: Tool[]): void;
  /** Notifications to pass downstream (list changes, resource updates, log messages). */
  onNotification(listener: (notification: ServerNotification) => void): () => void;
  /** True once the connection has closed (the process exited or the session ended). */
  closed(): boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  logger: Logger;
  version: string;
  /** The environment a spawned backend inherits (minus `HITL_*`); default `process.env`. */
  env?: Record<string, string | undefined>;
}

function transportFor(spec: BackendSpec, env: Record<string, string | undefined>): Transport {
  if (spec.kind === 'url') {
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: spec.headers ? { headers: spec.headers } : undefined,
    });
  }
  // Through the shell so quoting works as typed; `exec` makes the server the child itself.
  return new StdioClientTransport({
    command: '/bin/sh',
    args: ['-c', `exec ${spec.command}`],
    env: backendEnv(env, spec.env),
    stderr: 'inherit',
  });
}

const MISS_REFRESH_MS = 5000;

const PASSED_NOTIFICATIONS = [
  ToolListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  LoggingMessageNotificationSchema,
] as const;

/** Connects (initialize handshake included) and reads the backend's tool list once. */
export async function connectBackend(spec: BackendSpec, options: ConnectOptions): Promise<Backend> {
  const client = new Client({ name: 'hitl-approval-proxy', version: options.version });
  const listeners = new Set<(n: ServerNotification) => void>();
  const hints = new Map<string, ToolHints>();
  const schemas = new Map<string, Record<string, unknown>>();
  let stale = true;
  let refreshedAt = 0;
  let closed = false;
  const log = options.logger.child({ backend: backendName(spec) });

  for (const schema of PASSED_NOTIFICATIONS) {
    client.setNotificationHandler(schema, (notification) => {
      if (notification.method === 'notifications/tools/list_changed') stale = true;
      for (const listener of listeners) listener(notification as ServerNotification);
    });
  }
  client.onclose = () => {
    closed = true;
    log.warn('backend connection closed');
  };
  client.onerror = (error) => log.warn({ err: error.message }, 'backend transport error');
  const transport = transportFor(spec, options.env ?? process.env);
  await client.connect(transport);
  deliverProgressBeforeResults(transport);

  const remember = (tools: Tool[]) => {
    for (const tool of tools) {
      hints.set(tool.name, { ...tool.annotations });
      schemas.set(tool.name, tool.inputSchema);
    }
  };
  const refresh = async () => {
    stale = false;
    refreshedAt = Date.now();
    const seen: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      seen.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    hints.clear();
    schemas.clear();
    remember(seen);
  };
  await refresh();
  log.info({ tools: hints.size }, 'backend connected');

  return {
    id: backendId(spec),
    name: backendName(spec),
    client,
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    async hints(tool) {
      // An unknown name refreshes at most every few seconds, so made-up names cannot hammer the backend.
      if (stale || (!hints.has(tool) && Date.now() - refreshedAt > MISS_REFRESH_MS)) await refresh();
      return hints.get(tool);
    },
    inputSchema: (tool) => schemas.get(tool),
    remember,
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    closed: () => closed,
    close: () => client.close(),
  };
}
