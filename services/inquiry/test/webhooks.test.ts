import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Delivery, InquiryResult } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORE_KINDS, startTestNode, type TestNode } from './harness.js';

/** Webhooks: Standard Webhooks signatures, retries with the same id, SSRF guard, ops log. */

const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
}

/** Checks the signature the way the spec says, by hand: HMAC-SHA256 of `id.timestamp.body`. */
function verify(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(' ').some((part) => {
    const [version, value] = part.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A loopback receiver that fails the first `failFirst` POSTs with 500 and keeps every one. */
async function startReceiver(secret: string, failFirst: number) {
  const received: Received[] = [];
  let calls = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      const timestamp = String(req.headers['webhook-timestamp']);
      const signature = String(req.headers['webhook-signature']);
      received.push({
        id,
        timestamp,
        signature,
        body,
        verified: verify(secret, id, timestamp, body, signature),
      });
      calls++;
      res.statusCode = calls <= failFirst ? 500 : 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const WAIT = { timeout: 10_000, interval: 50 };

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

describe.each(STORE_KINDS)('webhooks (%s store)', (kind) => {
  let t: TestNode;
  let dir: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  type Received = (typeof receiver.received)[number];
  /** The first request the receiver got that passes `test`; throws (so `vi.waitFor` retries) until then. */
  const received = (test: (r: Received) => boolean): Received => {
    const hit = receiver.received.find(test);
    if (!hit) throw new Error('no such webhook request yet');
    return hit;
  };
  const hookSecret = secret();
  const user = `hooked-${randomUUID().slice(0, 6)}`;
  beforeAll(async () => {
    receiver = await startReceiver(hookSecret, 2);
    dir = await mkdtemp(join(tmpdir(), 'hitl-webhooks-'));
    const file = join(dir, 'directory.json');
    const webhooks = [
      {
        url: `http://127.0.0.1:${receiver.port}/hook`,
        secret: hookSecret,
        events: ['inquiry.created', 'inquiry.resolved'],
        users: [user],
      },
      {
        url: `http://localhost:${receiver.port}/private`,
        secret: secret(),
        events: ['inquiry.created'],
        users: [user],
      },
      { url: 'http://10.1.2.3/private', secret: secret(), events: ['inquiry.created'], users: [user] },
    ];
    const teams = { crew: { members: [user], askers: ['crew-bot'] } };
    await writeFile(file, JSON.stringify({ webhooks, teams }));
    t = await startTestNode(kind, {
      HITL_DIRECTORY_FILE: file,
      HITL_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      HITL_WEBHOOK_BACKOFF_MS: '100',
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers signed, retries with the same id, carries an answer link, and logs every attempt', async () => {
    const agent = await t.mcp(user);
    const call = agent.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Deploy?', options: ['yes', 'no'] },
    });
    // Two 500s, then accepted: three POSTs of one message, each signed, one id.
    const created = await vi.waitFor(
      () => {
        expect(receiver.received.length).toBeGreaterThanOrEqual(3);
        return receiver.received.slice(0, 3);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(new Set(created.map((r) => r.id)).size).toBe(1);
    expect(created.every((r) => r.verified)).toBe(true);
    expect(created[0]?.id).toMatch(/^msg_/);
    const body = JSON.parse(created[2]?.body ?? '{}') as {
      type: string;
      timestamp: string;
      data: { inquiry: { inquiryId: string; question: string }; answerUrl: string };
    };
    expect(body.type).toBe('inquiry.created');
    expect(body.data.inquiry.question).toBe('Deploy?');
    expect(body.data.answerUrl.startsWith(`${t.url}/a/`)).toBe(true);
    // A tampered body does not verify.
    expect(
      verify(
        hookSecret,
        created[2]?.id ?? '',
        created[2]?.timestamp ?? '',
        `${created[2]?.body} `,
        created[2]?.signature ?? '',
      ),
    ).toBe(false);

    // The relayed link answers the inquiry; the held call resumes; `inquiry.resolved` follows.
    const answered = await fetch(body.data.answerUrl, {
      method: 'POST',
      body: new URLSearchParams([['response', 'yes']]),
    });
    expect(answered.status).toBe(200);
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'yes',
      resolvedBy: { deviceName: 'webhook link' },
    });
    const resolved = await vi.waitFor(() => received((r) => r.body.includes('"inquiry.resolved"')), WAIT);
    expect(resolved.verified).toBe(true);
    expect(resolved.id).not.toBe(created[0]?.id);

    // Ops see every delivery and attempt; the private targets were refused before any byte was sent
    // (the ranges: packages/auth/test/outbound-guard.test.ts).
    const ops = await t.token('ops-1', 'ops');
    const list = async () =>
      (
        (await (
          await t.rest(`/api/webhooks/deliveries?inquiryId=${body.data.inquiry.inquiryId}`, { token: ops })
        ).json()) as {
          items: Delivery[];
        }
      ).items;
    let items = await list();
    const byUrl = (fragment: string, event = 'inquiry.created') =>
      items.find((d) => d.url.includes(fragment) && d.event === event);
    await vi.waitFor(
      async () => {
        items = await list();
        expect(byUrl('/hook')?.status).toBe('delivered');
        expect(byUrl('/hook', 'inquiry.resolved')?.status).toBe('delivered');
        expect(byUrl('localhost')?.attempts.length).toBeTruthy();
      },
      { timeout: 5000, interval: 50 },
    );
    const hook = byUrl('/hook');
    expect(hook).toMatchObject({ status: 'delivered', event: 'inquiry.created' });
    expect(hook?.attempts.map((a) => a.status)).toEqual([500, 500, 204]);
    expect(byUrl('localhost')?.attempts[0]?.error).toMatch(/not sent/);
    expect(byUrl('10.1.2.3')?.attempts[0]?.error).toMatch(/not sent/);
    expect(byUrl('/hook', 'inquiry.resolved')?.status).toBe('delivered');
    expect(receiver.received.some((r) => r.body.includes('"private"'))).toBe(false);

    // The inquiry's channels (the ops console's per-inquiry view) list the same webhook rows.
    const channels = await t.rest(`/api/inquiries/${body.data.inquiry.inquiryId}/channels`, { token: ops });
    expect(channels.status).toBe(200);
    const rows = ((await channels.json()) as { items: Delivery[] }).items.filter(
      (d) => d.channel === 'webhook',
    );
    const row = (fragment: string, event = 'inquiry.created') =>
      rows.find((d) => d.url.includes(fragment) && d.event === event);
    expect(rows).toHaveLength(4);
    expect(row('/hook')).toMatchObject({ id: created[0]?.id, status: 'delivered' });
    expect(row('/hook')?.attempts.map((a) => a.status)).toEqual([500, 500, 204]);
    expect(row('/hook', 'inquiry.resolved')).toMatchObject({ id: resolved.id, status: 'delivered' });
    expect(row('/hook', 'inquiry.resolved')?.attempts.map((a) => a.status)).toEqual([204]);
    for (const refused of ['localhost', '10.1.2.3']) {
      expect(row(refused)?.attempts[0]).toMatchObject({ error: expect.stringMatching(/not sent/) });
      expect(row(refused)?.attempts[0]?.status).toBeUndefined();
    }
    const device = await t.token(user, 'device');
    expect((await t.rest('/api/webhooks/deliveries', { token: device })).status).toBe(403);
    expect((await t.rest('/api/webhooks/deliveries?limit=0', { token: ops })).status).toBe(400);
  }, 30_000);

  it('hears of a team question addressed to its user (asked by another), and its link answers as that user', async () => {
    const agent = await t.mcp('crew-bot');
    const call = agent.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Crew: restart the worker?', audience: { team: 'crew' } },
    });
    const created = await vi.waitFor(
      () =>
        received((r) => r.body.includes('Crew: restart the worker?') && r.body.includes('inquiry.created')),
      WAIT,
    );
    const { data } = JSON.parse(created.body) as { data: { answerUrl: string } };
    const answered = await fetch(data.answerUrl, {
      method: 'POST',
      body: new URLSearchParams([['response', 'ok']]),
    });
    expect(answered.status).toBe(200);
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'ok',
      resolvedBy: { userId: user },
    });
  }, 30_000);
});
