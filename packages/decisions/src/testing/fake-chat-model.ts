import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake endpoint answers the next requests. */
export interface FakeReply {
  /** The assistant message content (an object is sent as its JSON text). */
  content?: string | Record<string, unknown>;
  /** HTTP status; not 200 sends an OpenAI-style error body. */
  status?: number;
  /** Wait this long before answering, in ms. */
  delayMs?: number;
}

/** A local OpenAI-compatible chat-completions endpoint for tests (a real HTTP server). */
export interface FakeChatModel {
  /** Base URL, e.g. `http://127.0.0.1:43210/v1`. */
  url: string;
  /** Bodies of every request received. */
  requests: { model?: string; messages?: { role: string; content: string }[]; authorization?: string }[];
  /** Sets the reply for the requests that follow. */
  reply(next: FakeReply): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/**
 * Starts a fake chat-completions server on a free loopback port.
 *
 * @example
 * const llm = await startFakeChatModel();
 * llm.reply({ content: { decision: 'answer', answer: 'M', rationale: 'the cart says M', confidence: 0.8 } });
 */
export async function startFakeChatModel(): Promise<FakeChatModel> {
  let next: FakeReply = { content: '{}' };
  const requests: FakeChatModel['requests'] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = await readJson(req);
    requests.push({ ...body, authorization: req.headers.authorization });
    const reply = next;
    // time itself is under test: a slow model answers after `delayMs`.
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    const status = reply.status ?? 200;
    res.writeHead(status, { 'content-type': 'application/json' });
    if (status !== 200) {
      res.end(JSON.stringify({ error: { message: 'upstream failure', type: 'server_error' } }));
      return;
    }
    const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    res.end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (reply) => {
      next = reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
