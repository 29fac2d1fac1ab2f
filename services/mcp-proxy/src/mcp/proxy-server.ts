import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { sharedValidator } from '../shared-validator.js';
import type { CallDeps } from './call-deps.js';
import {
  type ChatHook,
  type GatedCall,
  gateFor,
  outlivesHold,
  resultOf,
  runGatedCall,
} from './gated-call.js';
import { idempotencyKeyOf, runIdempotentCall } from './idempotent-call.js';
import { OPERATION_STATUS_TOOL, operationStatus, operationStatusTool } from './operation-status.js';
import { ProgressRelay } from './progress-relay.js';

export type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

/** Who is calling, and how their calls are cancelled. */
export interface ProxySession {
  /** The human whose approval gates this agent's calls (the token's `sub`, or the stdio user). */
  userId: string;
  /**
   * Runs a call's work with the signal that cancels it: the request's explicit
   * `notifications/cancelled` (never a merely dropped connection).
   */
  withSignal<T>(extra: Extra, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  version: string;
  /** In a session whose client takes elicitation: the chat this call may put its approval in. */
  chatFor?(extra: Extra): ChatHook;
}

/** What the proxy offers downstream: the backend's capabilities, plus tools (for its own tool). */
function capabilitiesFrom(backend: ServerCapabilities): ServerCapabilities {
  return {
    tools: { listChanged: backend.tools?.listChanged ?? false },
    ...(backend.resources ? { resources: backend.resources } : {}),
    ...(backend.prompts ? { prompts: backend.prompts } : {}),
    ...(backend.completions ? { completions: backend.completions } : {}),
    ...(backend.logging ? { logging: backend.logging } : {}),
  };
}

/** Unknown failures become an internal error the agent can read; protocol errors pass as they are. */
function asMcpError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  return new McpError(ErrorCode.InternalError, (error as Error)?.message ?? 'internal error');
}

/**
 * A low-level MCP `Server` in front of the backend: lists, reads, prompts, completions and logging
 * pass through; `tools/call` goes through the gate; `get_operation_status` is answered here.
 */
export function createProxyServer(deps: CallDeps, session: ProxySession): Server {
  const { backend } = deps;
  const caps = backend.capabilities;
  const server = new Server(
    { name: `hitl-approval-proxy (${backend.name})`, version: session.version },
    {
      capabilities: capabilitiesFrom(caps),
      jsonSchemaValidator: sharedValidator,
      ...(backend.instructions ? { instructions: backend.instructions } : {}),
    },
  );
  const up = backend.client;

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const page = await up.listTools(request.params, { signal: extra.signal });
    backend.remember(page.tools);
    const tools = page.tools.filter((tool) => tool.name !== OPERATION_STATUS_TOOL);
    return { ...page, tools: page.nextCursor ? tools : [...tools, operationStatusTool] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      return await callTool(deps, session, request.params, extra);
    } catch (error) {
      throw asMcpError(error);
    }
  });
  if (caps.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (r, extra) =>
      up.listResources(r.params, { signal: extra.signal }),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (r, extra) =>
      up.listResourceTemplates(r.params, { signal: extra.signal }),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (r, extra) =>
      up.readResource(r.params, { signal: extra.signal }),
    );
    if (caps.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, (r, extra) =>
        up.subscribeResource(r.params, { signal: extra.signal }),
      );
      server.setRequestHandler(UnsubscribeRequestSchema, (r, extra) =>
        up.unsubscribeResource(r.params, { signal: extra.signal }),
      );
    }
  }
  if (caps.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (r, extra) =>
      up.listPrompts(r.params, { signal: extra.signal }),
    );
    server.setRequestHandler(GetPromptRequestSchema, (r, extra) =>
      up.getPrompt(r.params, { signal: extra.signal }),
    );
  }
  if (caps.completions) {
    server.setRequestHandler(CompleteRequestSchema, (r, extra) =>
      up.complete(r.params, { signal: extra.signal }),
    );
  }
  if (caps.logging) {
    server.setRequestHandler(SetLevelRequestSchema, (r, extra) =>
      up.setLoggingLevel(r.params.level, { signal: extra.signal }),
    );
  }
  return server;
}

async function callTool(
  deps: CallDeps,
  session: ProxySession,
  params: GatedCall['params'],
  extra: Extra,
): Promise<CallToolResult> {
  if (params.name === OPERATION_STATUS_TOOL) {
    return session.withSignal(extra, (signal) =>
      operationStatus(deps, session.userId, params.arguments, signal),
    );
  }
  const key = idempotencyKeyOf(params._meta);
  const token = params._meta?.progressToken;
  const relay =
    token === undefined
      ? undefined
      : new ProgressRelay((progress) =>
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, ...progress },
          }),
        );
  const result = await session.withSignal(extra, async (signal) => {
    const chat = session.chatFor?.(extra);
    const call: GatedCall = {
      userId: session.userId,
      params,
      signal,
      ...(relay ? { relay } : {}),
      ...(chat ? { chat } : {}),
    };
    if (key !== undefined) return runIdempotentCall(deps, { ...call, idempotencyKey: key });
    const gate = await gateFor(deps, params);
    // An approval that may outlive the call needs a key to be collected by: the proxy assigns one.
    if (outlivesHold(deps, gate)) {
      return runIdempotentCall(deps, { ...call, idempotencyKey: `auto:${randomUUID()}`, assignedKey: true });
    }
    return resultOf(deps, call, await runGatedCall(deps, call, gate));
  });
  // Progress written before the result reaches the agent before it (clients drop late progress).
  await relay?.flush();
  return result;
}
