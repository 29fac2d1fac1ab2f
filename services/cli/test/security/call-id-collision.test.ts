import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeProcess, rpcPost, spawnNode, token } from '../node-process.js';

/**
 * Issue 34 item 7: two agents on one token that reuse a JSON-RPC id. Neither call is lost to the
 * collision: a `notifications/cancelled` naming that id cannot tell which call it means, so it cancels
 * neither (and is logged), and a draining node ends both calls with `pending`.
 */
describe('security: two held calls with one token and one JSON-RPC id', { timeout: 60_000 }, () => {
  const user = 'twin-agents';
  let node: NodeProcess;
  let log = '';
  beforeAll(async () => {
    node = await spawnNode({ HITL_DRAIN_MS: '0' });
    node.child.stdout?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
  }, 60_000);
  afterAll(async () => {
    await node?.kill('SIGKILL');
  });

  /** The user's pending inquiries (the REST list's default), with their status. */
  const pending = async (): Promise<{ inquiryId: string; status: string }[]> => {
    const response = await fetch(`${node.url}/api/inquiries`, {
      headers: { authorization: `Bearer ${await token(user, 'device')}` },
    });
    return ((await response.json()) as { items: { inquiryId: string; status: string }[] }).items;
  };

  it('an ambiguous cancel cancels neither; the drain ends both calls with pending', async () => {
    const ask = (question: string) =>
      rpcPost(node.url, user, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'send_inquiry', arguments: { question } },
      });
    // Both agents hold the same token (rpcPost signs one per user and role) and both use id 7.
    const first = await ask('Agent one: deploy?');
    const second = await ask('Agent two: migrate?');
    expect([first.status, second.status]).toEqual([200, 200]);
    const bodies = [first.text(), second.text()].map((body) => body.catch((error: Error) => error.message));
    await vi.waitFor(async () => expect(await pending()).toHaveLength(2), { timeout: 20_000 });

    const cancel = await rpcPost(node.url, user, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'agent one stops' },
    });
    expect(cancel.status).toBe(202);
    // The cancel has been handled once it is logged as ambiguous or once a question ended.
    await vi.waitFor(
      async () => {
        const open = (await pending()).filter((i) => i.status === 'pending');
        expect(open.length < 2 || /ambiguous cancel/.test(log)).toBe(true);
      },
      { timeout: 20_000 },
    );
    expect((await pending()).map((i) => i.status)).toEqual(['pending', 'pending']);
    expect(log).toMatch(/"requestId":7.*ambiguous cancel/);

    // A drain (no wait: HITL_DRAIN_MS 0) answers every held call, the colliding ones included.
    node.child.kill('SIGTERM');
    const results = await Promise.all(bodies);
    for (const text of results) expect(text).toContain('"status":"pending"');
    expect(await node.exited).toBe(0);
  });
});
