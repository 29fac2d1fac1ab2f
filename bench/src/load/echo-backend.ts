/**
 * A tiny stdio MCP server for the `standing` scenario: `look` (read-only: the proxy passes it
 * unguarded) and `touch` (destructive: gated) do the same trivial work, so the difference between
 * their latencies through the proxy is the gate's own cost.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const inputSchema = { type: 'object' as const, properties: { n: { type: 'number' } } };
const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'look', description: 'Look at n.', inputSchema, annotations: { readOnlyHint: true } },
    { name: 'touch', description: 'Touch n.', inputSchema, annotations: { destructiveHint: true } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [
    { type: 'text', text: `${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}` },
  ],
}));
await server.connect(new StdioServerTransport());
