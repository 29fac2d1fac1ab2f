import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CARD_URI } from '../chat/inquiry-card.js';
import type { CallContext } from './call-context.js';
import { CLARIFY_PROMPT, type DescribedTool } from './descriptions.js';
import { cancelTask, getTask, getTaskResult, listTasks } from './tasks.js';
import { callTool } from './tool-calls.js';
import { toolList } from './tool-list.js';

/** A per-request SDK server also lists tools (described per connection) and prompts. */
export interface McpContext extends CallContext {
  descriptions: Record<DescribedTool, string>;
  version: string;
}

const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

/** A fresh low-level MCP server for one HTTP request (stateless mode: never shared). */
export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: 'hitl-inquiry', version: ctx.version },
    // One validator for every per-request server: the SDK would build a fresh Ajv for each one.
    // Tasks: our own handlers over the task store (tasks.ts), not the SDK's TaskStore plumbing,
    // whose status lives in the store and whose results are stored copies.
    {
      capabilities: {
        tools: {},
        prompts: {},
        // The inquiry card (MCP Apps) is a resource.
        resources: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      jsonSchemaValidator: SHARED_VALIDATOR,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList(ctx.descriptions) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(ctx, request.params, extra));
  server.setRequestHandler(GetTaskRequestSchema, (request) => getTask(ctx, request.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) =>
    getTaskResult(ctx, request.params.taskId, extra),
  );
  server.setRequestHandler(CancelTaskRequestSchema, (request) => cancelTask(ctx, request.params.taskId));
  server.setRequestHandler(ListTasksRequestSchema, (request) => listTasks(ctx, request.params?.cursor));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: ctx.cards.list() }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== CARD_URI) {
      throw new McpError(ErrorCode.InvalidParams, `unknown resource: ${request.params.uri.slice(0, 200)}`);
    }
    return ctx.cards.read();
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: CLARIFY_PROMPT.name,
        description: CLARIFY_PROMPT.description,
        arguments: [
          { name: 'request', description: "The person's request, if you have it.", required: false },
        ],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== CLARIFY_PROMPT.name) {
      throw new McpError(ErrorCode.InvalidParams, `unknown prompt: ${request.params.name}`);
    }
    const userRequest = request.params.arguments?.request;
    const text = userRequest ? `${CLARIFY_PROMPT.text}\n\nThe request: ${userRequest}` : CLARIFY_PROMPT.text;
    return {
      description: CLARIFY_PROMPT.description,
      messages: [{ role: 'user', content: { type: 'text', text } }],
    };
  });
  return server;
}
