import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeProcess, rpcPost, sleep, spawnNode, token } from '../node-process.js';

/** A raw TCP connection to the node, recording what comes back and when it is closed. */
function open(
  url: string,
): Promise<{ socket: Socket; data: () => string; closed: () => boolean; closedAt: () => number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let data = '';
    let closedAt = 0;
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      resolve({ socket, data: () => data, closed: () => closedAt > 0, closedAt: () => closedAt }),
    );
    socket.on('data', (chunk) => {
      data += chunk.toString();
    });
    socket.on('close', () => {
      closedAt = Date.now();
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

const GET_HEALTH = (host: string) =>
  `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`;

/** Finding 8: slow clients and idle sockets are bounded. */
describe('security: HTTP limits', () => {
  let node: NodeProcess;
  let host = '';
  beforeAll(async () => {
    node = await spawnNode({ HITL_MAX_CONNECTIONS: '12' });
    host = new URL(node.url).host;
  });
  afterAll(async () => {
    await node?.kill();
  });

  it('keeps an idle keep-alive socket open longer than clients do (65–75 s), and says so', async () => {
    const conn = await open(node.url);
    conn.socket.write(GET_HEALTH(host));
    await vi.waitFor(() => expect(conn.data()).toMatch(/keep-alive: timeout=\d+/i), { timeout: 5000 });
    const timeout = Number(conn.data().match(/keep-alive: timeout=(\d+)/i)?.[1]);
    expect(timeout).toBeGreaterThanOrEqual(65);
    expect(timeout).toBeLessThanOrEqual(75);
    // time itself is under test: idle past Node's default of 5 s, the socket must still be open.
    await sleep(6500);
    expect(conn.closed()).toBe(false);
    conn.socket.write(GET_HEALTH(host));
    await vi.waitFor(() => expect(conn.data().match(/HTTP\/1\.1 200/g)).toHaveLength(2), { timeout: 5000 });
    conn.socket.destroy();
  });

  it('holds at most HITL_MAX_CONNECTIONS sockets; the node still serves once they go', async () => {
    const conns = await Promise.all(Array.from({ length: 30 }, () => open(node.url)));
    // The node closes every socket past the limit.
    await vi.waitFor(() => expect(conns.filter((c) => !c.closed()).length).toBeLessThanOrEqual(12), {
      timeout: 5000,
    });
    for (const c of conns) c.socket.destroy();
    // Once they go it serves again (it notices the closes on its own time, hence the retry).
    await vi.waitFor(async () => expect((await fetch(`${node.url}/healthz`)).status).toBe(200), {
      timeout: 5000,
    });
  });

  it('cuts a body dripped byte by byte and headers that never end after 30 s, yet a held call outlives both', async () => {
    // A held send_inquiry (its request is complete; only the response is long) must not be cut.
    const held = await rpcPost(node.url, 'slow', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'send_inquiry',
        arguments: { question: 'still there after 35 s?' },
        _meta: { progressToken: 'p1' },
      },
    });
    expect(held.status).toBe(200);
    const reader = held.body?.getReader();
    const decoder = new TextDecoder();
    let stream = '';
    const pump = (async () => {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return;
        stream += decoder.decode(chunk.value);
      }
    })();

    const started = Date.now();
    const drip = await open(node.url);
    // Authorised, so the node waits for the body rather than answering 401 at once.
    const auth = `Authorization: Bearer ${await token('slow', 'agent')}`;
    drip.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n${auth}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
    );
    const headers = await open(node.url);
    headers.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`);
    const dripper = setInterval(() => {
      if (!drip.closed()) drip.socket.write(' ');
      if (!headers.closed()) headers.socket.write('X-Slow: 1\r\n');
    }, 1000);
    try {
      await vi.waitFor(() => expect(drip.closed() && headers.closed()).toBe(true), {
        timeout: 45_000,
        interval: 250,
      });
    } finally {
      clearInterval(dripper);
    }
    expect(drip.closed()).toBe(true);
    expect(headers.closed()).toBe(true);
    // time itself is under test: the node's 30 s request timeout closes a slow body and slow headers,
    // not before 25 s and not much after 30 s.
    expect(drip.closedAt() - started).toBeLessThan(40_000);
    expect(headers.closedAt() - started).toBeLessThan(40_000);
    expect(drip.closedAt() - started).toBeGreaterThan(25_000);

    // Past the 30 s request limit: the held call still gets its answer.
    const inquiryId = stream.match(/"inquiryId":"([^"]+)"/)?.[1];
    expect(inquiryId).toBeTruthy();
    const answered = await fetch(`${node.url}/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('slow', 'device')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ response: 'yes, still here' }),
    });
    expect(answered.status).toBe(200);
    await pump;
    expect(stream).toContain('yes, still here');
  }, 70_000);
});
