import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Inquiry } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, mcpClient, type NodeProcess, spawnNode, token } from '../node-process.js';

/**
 * Round 3, item 1: a webhook's answer link acts only for the person whose channel received it. The
 * dispatcher used to sign one link for the audience's first person and send it to every webhook, so
 * bob's webhook carried a link that voted as alice.
 */

interface Created {
  data: { inquiry: Inquiry; answerUrl?: string };
}

/** A loopback webhook receiver keeping each path's `inquiry.created` bodies. */
async function startReceiver() {
  const bodies = new Map<string, Created[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const list = bodies.get(req.url ?? '') ?? [];
      list.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Created);
      bodies.set(req.url ?? '', list);
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const whsec = () => `whsec_${randomBytes(24).toString('base64')}`;

describe('security: a webhook answer link votes only as its own person', { timeout: 90_000 }, () => {
  let redis: TestRedisServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const dir = mkdtempSync(join(tmpdir(), 'hitl-hook-links-'));
  const nodes: NodeProcess[] = [];
  let agent: Client;

  beforeAll(async () => {
    redis = await startRedisServer();
    receiver = await startReceiver();
    const directory = join(dir, 'directory.json');
    const hook = (path: string, users?: string[]) => ({
      url: `http://127.0.0.1:${receiver.port}${path}`,
      secret: whsec(),
      events: ['inquiry.created'],
      ...(users ? { users } : {}),
    });
    writeFileSync(
      directory,
      JSON.stringify({
        teams: { t1: { members: ['alice', 'bob'], askers: ['payments-bot'] } },
        // bob's own webhook, and one that hears for everybody (one body for several people).
        webhooks: [hook('/bob', ['bob']), hook('/everyone')],
      }),
    );
    const env = {
      REDIS_URL: redis.url,
      HITL_DIRECTORY_FILE: directory,
      HITL_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      HITL_DEVICE_TIMEOUT_MS: '40000',
      HITL_SERVICE_TIMEOUT_MS: '50000',
      HITL_CLIENT_TIMEOUT_MS: '60000',
    };
    // One at a time: two processes booting at once on a busy machine are slow.
    for (let i = 0; i < 2; i++) nodes.push(await spawnNode(env));
    agent = await mcpClient(nodes[0]?.url ?? '', 'payments-bot');
  }, 90_000);
  afterAll(async () => {
    await agent?.close();
    await Promise.all(nodes.map((node) => node.kill()));
    await receiver?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bob votes on his phone, then posts his webhook link: already_voted, and nobody votes as alice', async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    const call = agent.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Pay invoice 4711 (9,800 EUR)?',
        kind: 'approval',
        quorum: 2,
        audience: { team: 't1' },
      },
    });
    call.catch(() => undefined);
    let bobs: Created | undefined;
    let everyones: Created | undefined;
    await eventually(() => {
      bobs = receiver.bodies.get('/bob')?.[0];
      everyones = receiver.bodies.get('/everyone')?.[0];
      return bobs !== undefined && everyones !== undefined;
    });
    const inquiryId = bobs?.data.inquiry.inquiryId ?? '';
    const link = bobs?.data.answerUrl ?? '';
    expect(link).toMatch(/\/a\/[\w.-]+$/);

    // bob approves on his phone, through the other node.
    const phone = await fetch(`${b.url}/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('bob', 'device')}`,
        'content-type': 'application/json',
        'x-device-name': 'phone',
      },
      body: JSON.stringify({ response: 'approve' }),
    });
    expect(phone.status).toBe(200);

    // Then he opens his webhook's link (on the first node) and approves again.
    const path = new URL(link).pathname;
    const page = await fetch(`${a.url}${path}`);
    expect(page.status).toBe(200);
    const posted = await fetch(`${a.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams([['action', 'approve']]),
    });
    expect(posted.status).toBe(409);
    expect(await posted.text()).toContain('You have voted already');

    // The approval still waits for a second person; bob's one vote is all there is.
    const read = await fetch(`${b.url}/api/inquiries/${inquiryId}`, {
      headers: { authorization: `Bearer ${await token('oncall', 'ops')}` },
    });
    const inquiry = (await read.json()) as Inquiry;
    expect(inquiry.status).toBe('pending');
    expect(inquiry.votes?.map((v) => v.userId)).toEqual(['bob']);
    // One body for alice and bob together carries no link: it could act for one of them only.
    expect(everyones?.data.inquiry.inquiryId).toBe(inquiryId);
    expect(everyones?.data.answerUrl).toBeUndefined();

    await fetch(`${a.url}/api/inquiries/${inquiryId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token('oncall', 'ops')}` },
    });
    await call;
  });
});
