import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Hono } from 'hono';
import type { TaskContext } from '../env/worker-protocol.js';

/** How a variant holds one suspended call. */
export type Variant = 'hono' | 'sdk' | 'sdk-shared-validator' | 'sdk-progress' | 'sse-lean';

type Release = () => void;
const RESULT = { content: [{ type: 'text', text: 'released' }], structuredContent: { status: 'answered' } };

/**
 * One way of holding a suspended `tools/call`, alone in its process (started with --expose-gc), so
 * the heap a held call costs can be compared between designs: `hono` (bare held request, the floor),
 * `sdk` (a fresh MCP Server + WebStandardStreamableHTTPServerTransport per request, as the node does),
 * `sdk-shared-validator` (the same, with one JSON-schema validator passed to every Server instead
 * of the new Ajv each Server makes), `sdk-progress` (plus a progress notification and a heartbeat
 * timer), `sse-lean` (the JSON-RPC
 * request answered by our own SSE stream from a small record once the call is parked).
 */
export async function variantServer(p: { variant: Variant }, ctx: TaskContext): Promise<object> {
  const held = new Set<Release>();
  const app = new Hono();
  app.post('/release', (c) => {
    for (const release of held) release();
    held.clear();
    return c.json({ ok: true });
  });
  app.post('/mcp', (c) => HANDLERS[p.variant](c.req.raw, held));
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  ctx.emit('listening', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  for (;;) {
    const command = await ctx.signal<{ op: 'memory' | 'stop' }>('cmd');
    if (command.op === 'stop') break;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const cpu = process.cpuUsage();
    ctx.emit('reply', { ...process.memoryUsage(), held: held.size, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
  server.close();
  return {};
}

const HANDLERS: Record<Variant, (request: Request, held: Set<Release>) => Promise<Response>> = {
  hono: async (request, held) => {
    const body = (await request.json()) as { id: number };
    await new Promise<void>((resolve) => held.add(resolve));
    return Response.json({ jsonrpc: '2.0', id: body.id, result: RESULT });
  },
  sdk: (request, held) => viaSdk(request, held, { progress: false, sharedValidator: false }),
  'sdk-shared-validator': (request, held) =>
    viaSdk(request, held, { progress: false, sharedValidator: true }),
  'sdk-progress': (request, held) => viaSdk(request, held, { progress: true, sharedValidator: false }),
  'sse-lean': async (request, held) => {
    const body = (await request.json()) as { id: number; params?: { _meta?: { progressToken?: unknown } } };
    const encoder = new TextEncoder();
    const event = (message: unknown) =>
      encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    const { id } = body;
    const progressToken = body.params?._meta?.progressToken;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        if (progressToken !== undefined) {
          controller.enqueue(
            event({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken, progress: 0 },
            }),
          );
        }
        const release = () => {
          controller.enqueue(event({ jsonrpc: '2.0', id, result: RESULT }));
          controller.close();
        };
        held.add(release);
      },
    });
    return new Response(stream, {
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    });
  },
};

/** One JSON-schema validator for every per-request server (the SDK makes a new Ajv per Server). */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

async function viaSdk(
  request: Request,
  held: Set<Release>,
  options: { progress: boolean; sharedValidator: boolean },
): Promise<Response> {
  const { progress, sharedValidator } = options;
  const server = new Server(
    { name: 'variant', version: '1.0.0' },
    { capabilities: { tools: {} }, ...(sharedValidator ? { jsonSchemaValidator: SHARED_VALIDATOR } : {}) },
  );
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    let timer: NodeJS.Timeout | undefined;
    const token = extra._meta?.progressToken;
    if (progress && token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 0 },
      });
      timer = setInterval(() => undefined, 10_000);
    }
    await new Promise<void>((resolve) => held.add(resolve));
    clearInterval(timer);
    return RESULT;
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: await request.json() });
}
