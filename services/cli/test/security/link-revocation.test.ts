import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LinkTokens } from '@hitl/auth';
import type { Inquiry, InquiryResult } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, mcpClient, type NodeProcess, SECRET, sleep, spawnNode, token } from '../node-process.js';

/**
 * Round 3, item 4: an answer link is refused once its person was revoked after it was issued
 * (`hitl token revoke --user`), and ops can revoke one inquiry's links
 * (`POST /api/inquiries/:id/links/revoke`); on every node of one Redis.
 */

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const run = promisify(execFile);
/** The nodes' own link signer: the same secret signs the same links a mail or webhook carries. */
const links = new LinkTokens(SECRET);
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;

describe('security: answer links honour revocations', { timeout: 90_000 }, () => {
  let redis: TestRedisServer;
  const nodes: NodeProcess[] = [];
  const agents: Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = {
      REDIS_URL: redis.url,
      HITL_DEVICE_TIMEOUT_MS: '40000',
      HITL_SERVICE_TIMEOUT_MS: '50000',
      HITL_CLIENT_TIMEOUT_MS: '60000',
    };
    for (let i = 0; i < 2; i++) nodes.push(await spawnNode(env));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await Promise.all(nodes.map((node) => node.kill()));
    await redis?.stop();
  });

  /** `user`'s agent asks for an approval of its own user; resolves with the held call and the id. */
  async function ask(user: string, question: string) {
    const agent = await mcpClient(nodes[0]?.url ?? '', user);
    agents.push(agent);
    const call = agent.callTool({ name: 'send_inquiry', arguments: { question, kind: 'approval' } });
    call.catch(() => undefined);
    const headers = { authorization: `Bearer ${await token(user, 'device')}` };
    let inquiryId: string | undefined;
    await eventually(async () => {
      const listed = await fetch(`${nodes[1]?.url}/api/inquiries?status=pending`, { headers });
      const { items } = (await listed.json()) as { items: Inquiry[] };
      inquiryId = items.find((item) => item.question === question)?.inquiryId;
      return inquiryId !== undefined;
    });
    return { call, inquiryId: inquiryId ?? '' };
  }

  const linkFor = (userId: string, inquiryId: string) =>
    links.sign({ userId, inquiryId, channel: 'email', expiresAt: Date.now() + 600_000 });
  const open = (node: NodeProcess, link: string) => fetch(`${node.url}/a/${link}`);
  const approve = (node: NodeProcess, link: string) =>
    fetch(`${node.url}/a/${link}`, { method: 'POST', body: new URLSearchParams([['action', 'approve']]) });
  const read = async (inquiryId: string) => {
    const got = await fetch(`${nodes[1]?.url}/api/inquiries/${inquiryId}`, {
      headers: { authorization: `Bearer ${await token('oncall', 'ops')}` },
    });
    return (await got.json()) as Inquiry;
  };
  const statusOf = async (inquiryId: string) => (await read(inquiryId)).status;
  /** Every node shows the link's page as revoked (GET changes nothing, so it can be polled). */
  const refusedEverywhere = (link: string) =>
    eventually(async () => {
      const pages = await Promise.all(nodes.map((node) => open(node, link)));
      return pages.every((page) => page.status === 403);
    });

  it('hitl token revoke --user bob: bob’s link no longer approves the payment, on any node', async () => {
    // bob's own agent asks; its token is revoked with bob's, so the outcome is read over REST.
    const { inquiryId } = await ask('bob', 'Pay 9,800 EUR to ACME?');
    const link = await linkFor('bob', inquiryId);
    expect((await open(nodes[1] as NodeProcess, link)).status).toBe(200);

    const revoked = await run(process.execPath, [BIN, 'token', 'revoke', '--user', 'bob'], {
      env: { PATH: process.env.PATH ?? '', HITL_SECRET: SECRET, REDIS_URL: redis.url, LOG_LEVEL: 'warn' },
    });
    expect(revoked.stdout).toContain('bob');
    await refusedEverywhere(link);
    const page = await (await open(nodes[0] as NodeProcess, link)).text();
    expect(page).toContain('This link was withdrawn');
    expect(page).not.toContain('<form');
    for (const node of nodes) {
      const posted = await approve(node, link);
      expect(posted.status).toBe(403);
      expect(posted.headers.get('content-type')).toMatch(/^text\/html/);
    }
    expect(await statusOf(inquiryId)).toBe('pending');

    // Time itself is under test: the revocation covers links issued up to its second, so a link
    // issued in a later second works again.
    await sleep(1100 - (Date.now() % 1000));
    const fresh = await linkFor('bob', inquiryId);
    expect((await approve(nodes[1] as NodeProcess, fresh)).status).toBe(200);
    expect(await read(inquiryId)).toMatchObject({ status: 'answered', answer: 'approve' });
  });

  it('ops revokes one inquiry’s links: refused on every node; the person’s other links and devices still work', async () => {
    const { call, inquiryId } = await ask('dana', 'Rotate the production keys?');
    const other = await ask('dana', 'Restart the queue?');
    const link = await linkFor('dana', inquiryId);
    const otherLink = await linkFor('dana', other.inquiryId);
    const ops = { authorization: `Bearer ${await token('oncall', 'ops', 'On-call')}` };
    const url = `${nodes[0]?.url}/api/inquiries/${inquiryId}/links/revoke`;

    // Only ops may, and only for an inquiry that exists.
    const asDevice = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token('dana', 'device')}` },
    });
    expect(asDevice.status).toBe(403);
    const unknown = await fetch(`${nodes[0]?.url}/api/inquiries/nope/links/revoke`, {
      method: 'POST',
      headers: ops,
    });
    expect(unknown.status).toBe(404);

    const revoked = await fetch(url, { method: 'POST', headers: ops });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ revoked: { inquiryId } });
    await refusedEverywhere(link);
    expect((await approve(nodes[1] as NodeProcess, link)).status).toBe(403);
    // A link minted later for the same inquiry is refused too: the inquiry's links are withdrawn.
    expect((await approve(nodes[1] as NodeProcess, await linkFor('dana', inquiryId))).status).toBe(403);
    expect(await statusOf(inquiryId)).toBe('pending');

    // Another inquiry's link still works, and so does dana's phone on the revoked one.
    expect((await approve(nodes[1] as NodeProcess, otherLink)).status).toBe(200);
    const phone = await fetch(`${nodes[1]?.url}/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('dana', 'device')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ response: 'reject' }),
    });
    expect(phone.status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'reject' });
    expect(structured(await other.call)).toMatchObject({ status: 'answered', answer: 'approve' });
  });
});
