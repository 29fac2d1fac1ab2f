import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
}

/** What the fake model says to a request: reply text, or an HTTP status to fail with. */
export type Respond = (request: ChatRequest) => string | { status: number };

export interface FakeLlm {
  /** The base URL, as `HITL_LLM_URL` takes it (`…/v1`). */
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

/**
 * A real local HTTP server speaking the OpenAI chat completions API: a stand-in for an outside model
 * we cannot run here. It answers `POST /v1/chat/completions` with whatever `respond` returns.
 */
export async function startFakeLlm(respond: Respond): Promise<FakeLlm> {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const reply = respond(request);
      if (typeof reply !== 'string') {
        res
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end('{"error":{"message":"down"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
