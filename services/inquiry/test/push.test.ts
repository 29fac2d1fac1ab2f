import { randomUUID } from 'node:crypto';
import type { Delivery, InquiryResult } from '@hitl/protocol';
import { eventually, startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StoreKind, startTestNode, type TestNode } from './harness.js';
import { browserKeys, decryptPush, startPushService, verifyVapid } from './push-service.js';

/** Web Push: a real node pushing to a push service on loopback, decrypted like a browser. */

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;
const ALLOW = { HITL_PUSH_ALLOW_HTTP_HOSTS: '127.0.0.1' };
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

type PushService = Awaited<ReturnType<typeof startPushService>>;

async function subscribe(t: TestNode, token: string, endpoint: string, keys = browserKeys()) {
  const response = await t.rest('/api/push/subscriptions', {
    method: 'POST',
    token,
    body: JSON.stringify({ endpoint, keys: keys.json, expirationTime: null, deviceName: 'phone' }),
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  return { id, keys };
}

async function publicKey(t: TestNode, token: string): Promise<string> {
  const response = await t.rest('/api/push/key', { token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { publicKey: string }).publicKey;
}

/** What ops read for one inquiry (`GET /api/inquiries/:id/channels`): its push rows, oldest first. */
async function pushRows(t: TestNode, inquiryId: string): Promise<Delivery[]> {
  const response = await t.rest(`/api/inquiries/${inquiryId}/channels`, {
    token: await t.token('ops-1', 'ops'),
  });
  expect(response.status).toBe(200);
  const { items } = (await response.json()) as { items: Delivery[] };
  return items.filter((d) => d.channel === 'push').reverse();
}

/** Waits until ops see the inquiry's push rows settle (none pending) and `count` of them, and returns them. */
async function settledPushRows(t: TestNode, inquiryId: string, count: number): Promise<Delivery[]> {
  let rows: Delivery[] = [];
  await eventually(async () => {
    rows = await pushRows(t, inquiryId);
    return rows.length === count && rows.every((d) => d.status !== 'pending');
  });
  return rows;
}

const statuses = (d: Delivery | undefined) => d?.attempts.map((a) => a.status);

describe.each<StoreKind>(['sqlite', 'redis'])(
  'Web Push from a %s node to a push service on loopback',
  (kind) => {
    let t: TestNode;
    let service: PushService;
    beforeAll(async () => {
      t = await startTestNode(kind, ALLOW);
    });
    afterAll(async () => {
      await t?.close();
    });
    afterEach(async () => {
      await service?.close();
    });

    it('pushes the inquiry (VAPID-signed, aes128gcm, TTL, Urgency, Topic), then `resolved` with the same Topic', async () => {
      service = await startPushService();
      const user = newUser();
      const device = await t.token(user, 'device', 'phone');
      const key = await publicKey(t, device);
      const { keys } = await subscribe(t, device, `${service.origin}/send/one`);

      const agent = await t.mcp(user);
      const asked = Date.now();
      const call = agent.callTool({
        name: 'send_inquiry',
        arguments: {
          question: 'Deploy the release to production?',
          options: ['yes', 'no'],
          answerWithinMs: 3_600_000,
        },
      });
      const [first] = await service.waitFor(1);
      if (!first) throw new Error('no push');
      expect(first.path).toBe('/send/one');
      const claims = verifyVapid(first.headers.authorization, key, service.origin);
      expect(claims.sub).toMatch(/^(mailto|https):/);
      expect(first.headers['content-encoding']).toBe('aes128gcm');
      expect(first.headers.urgency).toBe('high');
      const ttl = Number(first.headers.ttl);
      expect(ttl).toBeGreaterThan(3_500);
      expect(ttl).toBeLessThanOrEqual(3_600);
      const topic = String(first.headers.topic);
      expect(topic).toMatch(TOPIC);
      const pushed = decryptPush(first.body, keys) as Record<string, unknown>;
      expect(pushed).toMatchObject({
        type: 'inquiry',
        question: 'Deploy the release to production?',
        kind: 'question',
        options: ['yes', 'no'],
      });
      const inquiryId = String(pushed.inquiryId);
      expect(pushed.answerBy).toBeGreaterThanOrEqual(asked + 3_600_000);

      const answer = await t.rest(`/api/inquiries/${inquiryId}/answer`, {
        method: 'POST',
        token: device,
        body: JSON.stringify({ response: 'yes' }),
      });
      expect(answer.status).toBe(200);
      expect(structured(await call)).toMatchObject({ inquiryId, status: 'answered', answer: 'yes' });

      const [, second] = await service.waitFor(2);
      if (!second) throw new Error('no resolved push');
      verifyVapid(second.headers.authorization, key, service.origin);
      expect(second.headers.topic).toBe(topic);
      expect(second.headers.urgency).toBe('high');
      expect(decryptPush(second.body, keys)).toEqual({
        type: 'resolved',
        inquiryId,
        status: 'answered',
        resolvedBy: { kind: 'human', deviceName: 'phone' },
      });
      // time itself is under test: nothing more is pushed for a while.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(service.received).toHaveLength(2);
    });

    it.each([410, 404])(
      'a %i deletes the subscription: it is not listed, the resolution is not pushed there, ops see it gone',
      async (gone) => {
        service = await startPushService();
        service.replies.push({ status: gone });
        const user = newUser();
        const device = await t.token(user, 'device');
        await subscribe(t, device, `${service.origin}/send/gone`);
        const agent = await t.mcp(user);
        const call = agent.callTool({ name: 'send_inquiry', arguments: { question: 'Still there?' } });
        await service.waitFor(1);
        const listed = async () => {
          const response = await t.rest('/api/push/subscriptions', { token: device });
          return ((await response.json()) as { items: unknown[] }).items.length;
        };
        await eventually(async () => (await listed()) === 0);
        const pending = await t.rest('/api/inquiries?status=pending', { token: device });
        const [inquiry] = ((await pending.json()) as { items: { inquiryId: string }[] }).items;
        const inquiryId = inquiry?.inquiryId ?? '';
        const [row] = await settledPushRows(t, inquiryId, 1);
        expect(row).toMatchObject({
          channel: 'push',
          event: 'inquiry.created',
          url: service.origin,
          userId: user,
          status: 'failed',
          attempts: [{ status: gone, error: 'gone: subscription deleted' }],
        });
        await t.rest(`/api/inquiries/${inquiryId}/refuse`, { method: 'POST', token: device });
        expect(structured(await call).status).toBe('refused');
        // time itself is under test: the resolution is pushed nowhere, for a while.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(service.received).toHaveLength(1);
        // No `resolved` row: with the subscription gone there was nobody to tell.
        expect(await pushRows(t, inquiryId)).toHaveLength(1);
      },
    );

    it("revoking the device token that subscribed stops the pushes and removes its subscription; the user's other ones still get them", async () => {
      service = await startPushService();
      const user = newUser();
      const revokedToken = await t.token(user, 'device', 'old phone');
      const keptToken = await t.token(user, 'device', 'laptop');
      await subscribe(t, revokedToken, `${service.origin}/send/old-phone`);
      await subscribe(t, keptToken, `${service.origin}/send/laptop`);
      const { jti } = (await t.node.tokens.verify(revokedToken)) ?? {};
      const revoked = await t.rest('/api/revocations', {
        method: 'POST',
        token: await t.token('ops-1', 'ops'),
        body: JSON.stringify({ jti }),
      });
      expect(revoked.status).toBe(200);
      await eventually(async () => (await t.rest('/api/push/key', { token: revokedToken })).status === 401);

      const agent = await t.mcp(user);
      void agent
        .callTool({ name: 'send_inquiry', arguments: { question: 'Who gets this?', timeoutMs: 3000 } })
        .catch(() => undefined);
      await service.waitFor(1);
      // time itself is under test: nothing reaches the revoked subscription, for a while.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(service.received.map((r) => r.path)).toEqual(['/send/laptop']);
      const listed = await t.rest('/api/push/subscriptions', { token: keptToken });
      const { items } = (await listed.json()) as { items: { endpoint: string }[] };
      expect(items.map((i) => i.endpoint)).toEqual([`${service.origin}/send/laptop`]);
    });

    it('a 429 with Retry-After is tried again after it, and then delivered', async () => {
      service = await startPushService();
      service.replies.push({ status: 429, headers: { 'Retry-After': '1' } });
      const user = newUser();
      const device = await t.token(user, 'device');
      const { keys } = await subscribe(t, device, `${service.origin}/send/busy`);
      const agent = await t.mcp(user);
      const call = agent.callTool({ name: 'send_inquiry', arguments: { question: 'Busy service?' } });
      const [refused, retried] = await service.waitFor(2);
      if (!refused || !retried) throw new Error('expected two tries');
      expect(retried.at - refused.at).toBeGreaterThanOrEqual(950);
      const pushed = decryptPush(retried.body, keys) as { type: string; inquiryId: string };
      expect(pushed.type).toBe('inquiry');
      expect(retried.headers.topic).toBe(refused.headers.topic);
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/hitl_push_total\{type="inquiry",result="retried"\} 1/);
      await t.rest(`/api/inquiries/${pushed.inquiryId}/refuse`, { method: 'POST', token: device });
      await call;
    });

    // After the 429 test: that one counts `retried` from zero on this node.
    it('a 5xx is tried again after a backoff, then delivered; ops see both tries, then the resolution', async () => {
      service = await startPushService();
      service.replies.push({ status: 503 });
      const user = newUser();
      const device = await t.token(user, 'device');
      const { keys } = await subscribe(t, device, `${service.origin}/send/flaky`);
      const call = (await t.mcp(user)).callTool({ name: 'send_inquiry', arguments: { question: 'Flaky?' } });
      const [failed, retried] = await service.waitFor(2);
      if (!failed || !retried) throw new Error('expected two tries');
      // The first backoff is 1 s with ±25 % jitter (no Retry-After was given).
      expect(retried.at - failed.at).toBeGreaterThanOrEqual(700);
      expect(retried.headers.topic).toBe(failed.headers.topic);
      const pushed = decryptPush(retried.body, keys) as { type: string; inquiryId: string };
      expect(pushed.type).toBe('inquiry');
      const [created] = await settledPushRows(t, pushed.inquiryId, 1);
      expect(created).toMatchObject({ event: 'inquiry.created', url: service.origin, status: 'delivered' });
      expect(statuses(created)).toEqual([503, 201]);
      expect(created?.attempts[0]?.error).toBeTruthy();

      const answer = await t.rest(`/api/inquiries/${pushed.inquiryId}/answer`, {
        method: 'POST',
        token: device,
        body: JSON.stringify({ response: 'steady' }),
      });
      expect(answer.status).toBe(200);
      expect(structured(await call).status).toBe('answered');
      await service.waitFor(3);
      const [, resolved] = await settledPushRows(t, pushed.inquiryId, 2);
      expect(resolved).toMatchObject({ event: 'inquiry.resolved', status: 'delivered' });
      expect(statuses(resolved)).toEqual([201]);
    });

    it('a push the service keeps failing with 5xx ends as failed after its four tries; the subscription stays', async () => {
      service = await startPushService();
      // `Retry-After: 0` keeps the test short; the tries are counted the same as with the backoff.
      const busy = { status: 502, headers: { 'Retry-After': '0' } };
      service.replies.push(busy, busy, busy, busy);
      const user = newUser();
      const device = await t.token(user, 'device');
      await subscribe(t, device, `${service.origin}/send/down`);
      const call = (await t.mcp(user)).callTool({ name: 'send_inquiry', arguments: { question: 'Down?' } });
      await service.waitFor(4);
      const pending = await t.rest('/api/inquiries?status=pending', { token: device });
      const [inquiry] = ((await pending.json()) as { items: { inquiryId: string }[] }).items;
      const inquiryId = inquiry?.inquiryId ?? '';
      const [row] = await settledPushRows(t, inquiryId, 1);
      expect(row).toMatchObject({ event: 'inquiry.created', status: 'failed' });
      expect(statuses(row)).toEqual([502, 502, 502, 502]);
      // time itself is under test: no fifth try comes, for a while.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(service.received).toHaveLength(4);
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/hitl_push_total\{type="inquiry",result="failed"\} [1-9]/);

      // A failing service is not a gone subscription: the resolution is still pushed there.
      const listed = await t.rest('/api/push/subscriptions', { token: device });
      expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(1);
      await t.rest(`/api/inquiries/${inquiryId}/refuse`, { method: 'POST', token: device });
      expect(structured(await call).status).toBe('refused');
      await service.waitFor(5);
      const [, resolved] = await settledPushRows(t, inquiryId, 2);
      expect(resolved).toMatchObject({ event: 'inquiry.resolved', status: 'delivered' });
    });
  },
);

describe('a stuck push service', () => {
  let t: TestNode;
  let service: PushService;
  beforeAll(async () => {
    t = await startTestNode('sqlite', ALLOW);
    service = await startPushService();
  });
  afterAll(async () => {
    await t?.close();
    await service?.close();
  });

  it('never delays the question, the answer or the resumed call', async () => {
    // Every push (inquiry and resolved) is stuck: the node gives up on each only after its send timeout.
    service.replies.push({ status: 201, stuck: true }, { status: 201, stuck: true });
    const user = newUser();
    const device = await t.token(user, 'device');
    await subscribe(t, device, `${service.origin}/send/stuck`);
    const call = (await t.mcp(user)).callTool({
      name: 'send_inquiry',
      arguments: { question: 'Quick one?' },
    });
    await service.waitFor(1);
    const pending = await t.rest('/api/inquiries?status=pending', { token: device });
    const [inquiry] = ((await pending.json()) as { items: { inquiryId: string }[] }).items;
    const answered = await t.rest(`/api/inquiries/${inquiry?.inquiryId}/answer`, {
      method: 'POST',
      token: device,
      body: JSON.stringify({ response: 'yes' }),
    });
    expect(answered.status).toBe(200);
    expect(structured(await call).status).toBe('answered');
    // The question, the answer and the call all ended while the inquiry's push was still open: nothing
    // waited for it (a wait would have ended it first, by the node's send timeout).
    expect(service.open).toBeGreaterThanOrEqual(1);
    expect(service.open).toBe(service.received.length);
  });
});

describe('push subscription routes', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory', ALLOW);
  });
  afterAll(async () => {
    await t?.close();
  });
  const post = (token: string, body: unknown) =>
    t.rest('/api/push/subscriptions', { method: 'POST', token, body: JSON.stringify(body) });
  const keys = () => browserKeys().json;
  const list = async (token: string) =>
    (
      (await (await t.rest('/api/push/subscriptions', { token })).json()) as {
        items: { id: string; endpoint: string }[];
      }
    ).items;

  it('the key is for device and ops tokens (base64url, 65 bytes); an agent gets 403, no token 401', async () => {
    const user = newUser();
    const key = await publicKey(t, await t.token(user, 'device'));
    expect(Buffer.from(key, 'base64url')).toHaveLength(65);
    expect(await publicKey(t, await t.token('ops', 'ops'))).toBe(key);
    expect((await t.rest('/api/push/key', { token: await t.token(user, 'agent') })).status).toBe(403);
    expect((await t.rest('/api/push/key')).status).toBe(401);
  });

  it('refuses an endpoint that is not https (unless its host is listed), naming `endpoint`', async () => {
    const device = await t.token(newUser(), 'device');
    for (const endpoint of [
      'http://push.example/send/1',
      'ftp://push.example/x',
      'https://localhost/send',
      'https://10.1.2.3/send',
    ]) {
      const response = await post(device, { endpoint, keys: keys() });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /^endpoint: /,
      );
    }
    expect((await post(device, { endpoint: 'https://push.example/send/1', keys: keys() })).status).toBe(201);
    expect((await post(device, { endpoint: 'http://127.0.0.1:9/send', keys: keys() })).status).toBe(201);
  });

  it('names the bad field of a malformed subscription', async () => {
    const device = await t.token(newUser(), 'device');
    const bad = await post(device, {
      endpoint: 'https://push.example/s',
      keys: { p256dh: 'short', auth: keys().auth },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('keys.p256dh');
    const offCurve = `BA${'A'.repeat(85)}`;
    const notAPoint = await post(device, {
      endpoint: 'https://push.example/s',
      keys: { p256dh: offCurve, auth: keys().auth },
    });
    expect(notAPoint.status).toBe(400);
    expect(((await notAPoint.json()) as { error: { message: string } }).error.message).toBe(
      'keys.p256dh: not a P-256 public key',
    );
    const none = await post(device, { endpoint: 'https://push.example/s' });
    expect(((await none.json()) as { error: { message: string } }).error.message).toContain('keys');
    expect(
      (await post(await t.token(newUser(), 'agent'), { endpoint: 'https://push.example/s', keys: keys() }))
        .status,
    ).toBe(403);
  });

  it('keeps 20 per user (the oldest goes); the same endpoint again keeps its id', async () => {
    const device = await t.token(newUser(), 'device');
    const ids: string[] = [];
    for (let n = 0; n < 21; n += 1) {
      const response = await post(device, { endpoint: `https://push.example/send/${n}`, keys: keys() });
      ids.push(((await response.json()) as { id: string }).id);
      // time itself is under test: saves are ordered by time, so keep them in distinct milliseconds.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const items = await list(device);
    expect(items).toHaveLength(20);
    expect(items.map((item) => item.id)).not.toContain(ids[0]);
    expect(items.at(-1)?.id).toBe(ids[20]);
    const again = await post(device, { endpoint: 'https://push.example/send/20', keys: keys() });
    expect(again.status).toBe(201);
    expect(((await again.json()) as { id: string }).id).toBe(ids[20]);
    expect(await list(device)).toHaveLength(20);
  });

  it("deletes one's own subscription (204); another user's is 404 and stays", async () => {
    const owner = await t.token(newUser(), 'device');
    const other = await t.token(newUser(), 'device');
    const { id } = (await (
      await post(owner, { endpoint: 'https://push.example/mine', keys: keys() })
    ).json()) as { id: string };
    expect((await t.rest(`/api/push/subscriptions/${id}`, { method: 'DELETE', token: other })).status).toBe(
      404,
    );
    expect(await list(owner)).toHaveLength(1);
    expect((await t.rest(`/api/push/subscriptions/${id}`, { method: 'DELETE', token: owner })).status).toBe(
      204,
    );
    expect(await list(owner)).toHaveLength(0);
    expect((await t.rest(`/api/push/subscriptions/${id}`, { method: 'DELETE', token: owner })).status).toBe(
      404,
    );
  });
});

describe('two nodes on one Redis', () => {
  let redis: TestRedisServer;
  let a: TestNode;
  let b: TestNode;
  let service: PushService;
  beforeAll(async () => {
    redis = await startRedisServer();
    a = await startTestNode('memory', { ...ALLOW, REDIS_URL: redis.url });
    b = await startTestNode('memory', { ...ALLOW, REDIS_URL: redis.url });
    service = await startPushService();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await service?.close();
    await redis?.stop();
  });

  it('share one VAPID key; the creating node sends the inquiry push and the winner the resolved one, once each', async () => {
    const user = newUser();
    const device = await a.token(user, 'device');
    const key = await publicKey(a, device);
    expect(await publicKey(b, device)).toBe(key);
    const { keys } = await subscribe(b, device, `${service.origin}/send/shared`);

    const call = (await a.mcp(user)).callTool({
      name: 'send_inquiry',
      arguments: { question: 'Across nodes?' },
    });
    const [first] = await service.waitFor(1);
    verifyVapid(first?.headers.authorization, key, service.origin);
    const { inquiryId } = decryptPush(first?.body ?? Buffer.alloc(0), keys) as { inquiryId: string };
    const answered = await b.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: device,
      body: JSON.stringify({ response: 'fine' }),
    });
    expect(answered.status).toBe(200);
    expect(structured(await call).status).toBe('answered');
    const [, second] = await service.waitFor(2);
    verifyVapid(second?.headers.authorization, key, service.origin);
    expect(decryptPush(second?.body ?? Buffer.alloc(0), keys)).toMatchObject({ type: 'resolved', inquiryId });
    // time itself is under test: nothing more is pushed for a while.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(service.received).toHaveLength(2);
  });
});
