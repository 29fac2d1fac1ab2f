import { NodeClients } from '@hitl/mcp-proxy';
import { describe, expect, it, vi } from 'vitest';
import { useWorld } from './harness.js';

const world = useWorld('memory');

describe("the proxy's clients to the inquiry node", () => {
  it('shares one client per user, asks the token for every request, and closes after the last lease', async () => {
    const asked: string[] = [];
    const clients = new NodeClients({
      endpoint: new URL('/mcp', world().node.url),
      tokenFor: (userId) => {
        asked.push(userId);
        return world().node.tokens.sign({ sub: userId, role: 'agent', name: 'approval proxy' });
      },
      version: 'test',
      lingerMs: 50,
    });
    const signal = new AbortController().signal;
    const [a1, a2, b] = await Promise.all([
      clients.acquire('alice', signal),
      clients.acquire('alice', signal),
      clients.acquire('bob', signal),
    ]);
    expect(a1.client).toBe(a2.client);
    expect(b.client).not.toBe(a1.client);
    expect(clients.size).toBe(2);
    const before = asked.filter((u) => u === 'alice').length;
    // Side by side on one client: each call is its own POST, with the token asked again.
    const [l1, l2] = await Promise.all([a1.client.listTools(), a2.client.listTools()]);
    expect(l1.tools.map((t) => t.name)).toContain('send_inquiry');
    expect(l2.tools).toEqual(l1.tools);
    expect(asked.filter((u) => u === 'alice').length).toBe(before + 2);

    a1.release();
    a1.release(); // a second release of the same lease counts once
    expect(clients.size).toBe(2);
    a2.release();
    b.release();
    await vi.waitFor(() => expect(clients.size).toBe(0));
    // A new lease after the close connects afresh, and works.
    const again = await clients.acquire('alice', signal);
    expect(again.client).not.toBe(a1.client);
    expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
    again.release();
    await clients.closeAll();
    expect(clients.size).toBe(0);
  });

  it('refuses at once when the signal is already aborted, and fails a lease when the node is unreachable', async () => {
    const clients = new NodeClients({
      endpoint: new URL('http://127.0.0.1:9/mcp'),
      tokenFor: (userId) => world().node.tokens.sign({ sub: userId, role: 'agent', name: 'approval proxy' }),
      version: 'test',
      lingerMs: 50,
    });
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(clients.acquire('alice', aborted.signal)).rejects.toThrow('gone');
    await expect(clients.acquire('alice', new AbortController().signal)).rejects.toThrow();
    expect(clients.size).toBe(0);
  });
});
