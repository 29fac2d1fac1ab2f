import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectDevice, type TestDevice } from '@hitl/inquiry/testing';
import type { Inquiry, InquiryResult } from '@hitl/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, gauge, mcpClient, type NodeProcess, sleep, spawnNode, token } from './node-process.js';
import { call, claim, makePairing } from './pairing-helpers.js';

const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;

/** A browser's push subscription keys: a P-256 public key and a 16-byte auth secret. */
function pushKeys() {
  const ecdh = createECDH('prime256v1');
  return { p256dh: ecdh.generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** Long tiers: only the inquiries given a short `timeoutMs` reach their deadline during the test. */
const TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '60000',
  HITL_SERVICE_TIMEOUT_MS: '90000',
  HITL_CLIENT_TIMEOUT_MS: '120000',
};

describe('the embedded SQLite store across kill -9 (real processes, one state dir)', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'hitl-durable-'));
  const env = { HITL_STATE_DIR: stateDir, HITL_SWEEP_MS: '200', ...TIERS };
  const started: NodeProcess[] = [];
  const devices: TestDevice[] = [];
  const start = async () => {
    const node = await spawnNode(env);
    started.push(node);
    return node;
  };
  const device = async (url: string, user: string) => {
    const d = await connectDevice(url, await token(user, 'device'), 'phone');
    devices.push(d);
    await d.synced;
    return d;
  };
  afterAll(async () => {
    for (const d of devices) d.socket.disconnect();
    await Promise.all(started.map((node) => node.kill('SIGKILL')));
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('keeps inquiries, keys, deadlines, push subscriptions and paired devices; a second node on the dir refuses', async () => {
    const user = 'durable';
    const first = await start();
    const phone = await device(first.url, user);
    const agent = await mcpClient(first.url, user);
    // Kept in the same file, made through their REST routes: a push subscription, a device paired with a
    // code, and a code not yet claimed. A user of their own, with no inquiries: nothing is pushed to the
    // made-up endpoint.
    const laptop = await token('durable-kit', 'device', 'laptop');
    const endpoint = 'https://push.example.invalid/durable-kit';
    const subscribed = await call('POST', `${first.url}/api/push/subscriptions`, {
      token: laptop,
      body: { endpoint, keys: pushKeys(), deviceName: 'laptop' },
    });
    expect(subscribed.status).toBe(201);
    const paired = await claim(first.url, (await makePairing(first.url, laptop)).code, 'tablet');
    expect(paired.status).toBe(200);
    const tablet = paired.body.token as string;
    const unclaimed = await makePairing(first.url, laptop);
    const ask = (idempotencyKey: string, extra: Record<string, unknown> = {}) =>
      agent.callTool({
        name: 'send_inquiry',
        arguments: { question: idempotencyKey, idempotencyKey, ...extra },
      });

    // Answered and collected before the crash.
    const collected = ask('collected');
    const collectedId = (await phone.nextNew()).inquiryId;
    await phone.emit('inquiry:answer', { inquiryId: collectedId, response: 'early' });
    expect(structured(await collected)).toMatchObject({ status: 'answered', answer: 'early' });
    // Pending with a long deadline; pending with a deadline that passes while the node is down; pending
    // with a deadline a few seconds after the restart.
    void ask('long').catch(() => {});
    const longId = (await phone.nextNew()).inquiryId;
    void ask('short', { timeoutMs: 2000 }).catch(() => {});
    const shortId = (await phone.nextNew()).inquiryId;
    void ask('medium', { timeoutMs: 15_000 }).catch(() => {});
    const medium = await phone.nextNew();
    // Answered (acknowledged to the device) and killed at once, before the agent could collect it.
    void ask('acked').catch(() => {});
    const ackedId = (await phone.nextNew()).inquiryId;
    expect(await phone.emit('inquiry:answer', { inquiryId: ackedId, response: 'just in time' })).toEqual({
      ok: true,
      status: 'answered',
    });
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    phone.socket.disconnect();
    // time itself is under test: `short` (2 s) falls due while nobody runs.
    await sleep(2500);

    const restartedAt = Date.now();
    const second = await start();
    // A second process on the same state dir refuses with a clear message.
    await expect(spawnNode(env)).rejects.toThrow(/only one hitl node may run on a state directory/);

    const agent2 = await mcpClient(second.url, user);
    const get = async (idempotencyKey: string) =>
      structured(await agent2.callTool({ name: 'get_inquiry', arguments: { idempotencyKey } }));
    const get0 = await agent2.callTool({ name: 'get_inquiry', arguments: { idempotencyKey: 'medium' } });
    expect(structured(get0)).toMatchObject({ inquiryId: medium.inquiryId, status: 'pending' });
    // The deadline that passed while down fires at once.
    await eventually(async () => expect((await get('short')).status).toBe('timed_out'));
    const opsToken = await token('ops', 'ops');
    const read = async (inquiryId: string) =>
      (await (
        await fetch(`${second.url}/api/inquiries/${inquiryId}`, {
          headers: { authorization: `Bearer ${opsToken}` },
        })
      ).json()) as Inquiry;
    // Fired after the restart by the service timer (the new process's sweep), not before the kill.
    expect((await read(shortId)).resolvedAt).toBeGreaterThanOrEqual(restartedAt);
    expect(await get('short')).toMatchObject({ inquiryId: shortId, resolvedBy: { kind: 'service-timer' } });
    // Resolved ones read back by get_inquiry and REST; a retry with the key gets the answer.
    expect(await get('collected')).toMatchObject({
      inquiryId: collectedId,
      status: 'answered',
      answer: 'early',
    });
    expect(await read(ackedId)).toMatchObject({ status: 'answered', answer: 'just in time' });
    // The answer acknowledged just before the kill, through get_inquiry by its id.
    expect(
      structured(await agent2.callTool({ name: 'get_inquiry', arguments: { inquiryId: ackedId } })),
    ).toMatchObject({
      inquiryId: ackedId,
      status: 'answered',
      answer: 'just in time',
      resolvedBy: { kind: 'human', deviceName: 'phone' },
    });
    // The user reads their own answers over REST with their own token; another user's token finds none.
    const own = await token(user, 'device');
    for (const [inquiryId, answer] of [
      [collectedId, 'early'],
      [ackedId, 'just in time'],
    ] as const) {
      expect(await call('GET', `${second.url}/api/inquiries/${inquiryId}`, { token: own })).toMatchObject({
        status: 200,
        body: { inquiryId, userId: user, status: 'answered', answer },
      });
    }
    const stranger = await token('durable-stranger', 'device');
    expect((await call('GET', `${second.url}/api/inquiries/${ackedId}`, { token: stranger })).status).toBe(
      404,
    );
    // The push subscription and both device records are there; the tablet's token, paired before the
    // kill, still works; the code made before the kill still pairs once.
    expect(await call('GET', `${second.url}/api/push/subscriptions`, { token: laptop })).toMatchObject({
      status: 200,
      body: { items: [{ id: subscribed.body.id, endpoint, deviceName: 'laptop' }] },
    });
    const devicesSeen = await call('GET', `${second.url}/api/devices`, { token: tablet });
    expect(devicesSeen.status).toBe(200);
    const records = devicesSeen.body.items as { deviceName: string; createdAt: number; current: boolean }[];
    expect(records.map((d) => [d.deviceName, d.current]).sort()).toEqual([
      ['laptop', false],
      ['tablet', true],
    ]);
    for (const record of records) expect(record.createdAt).toBeLessThan(restartedAt);
    expect((await claim(second.url, unclaimed.code, 'watch')).status).toBe(200);
    expect((await claim(second.url, unclaimed.code, 'watch')).status).toBe(400);
    const retried = await agent2.callTool({
      name: 'send_inquiry',
      arguments: { question: 'acked', idempotencyKey: 'acked' },
    });
    expect(structured(retried)).toMatchObject({
      inquiryId: ackedId,
      status: 'answered',
      answer: 'just in time',
    });
    // Pending ones are still pending, shown to devices, and answerable; the retry re-attaches.
    const phone2 = await device(second.url, user);
    const shown = (await phone2.synced).inquiries.map((i) => i.inquiryId);
    expect(shown).toEqual(expect.arrayContaining([longId, medium.inquiryId]));
    expect(shown).not.toContain(shortId);
    expect(await get('long')).toMatchObject({ inquiryId: longId, status: 'pending' });
    const reattached = agent2.callTool({
      name: 'send_inquiry',
      arguments: { question: 'long', idempotencyKey: 'long' },
    });
    await eventually(async () => (await gauge(second.url, 'hitl_held_calls')) === 1);
    expect(await phone2.emit('inquiry:answer', { inquiryId: longId, response: 'after the restart' })).toEqual(
      {
        ok: true,
        status: 'answered',
      },
    );
    expect(structured(await reattached)).toMatchObject({ inquiryId: longId, answer: 'after the restart' });
    // The deadline still ahead at the restart fires at its time, not before.
    await eventually(async () => (await get('medium')).status === 'timed_out', 20_000);
    const ended = await get('medium');
    expect(ended.resolvedBy).toMatchObject({ kind: 'service-timer' });
    const inquiry = await read(medium.inquiryId);
    expect(inquiry.resolvedAt).toBeGreaterThanOrEqual(inquiry.deadlines.serviceAt);
  }, 90_000);

  it('a kill -9 during 200 concurrent answers loses no acknowledged answer and resolves none twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hitl-durable-race-'));
    const raceEnv = { ...env, HITL_STATE_DIR: dir };
    try {
      const user = 'racer';
      const first = await spawnNode(raceEnv);
      started.push(first);
      const phone = await device(first.url, user);
      const agent = await mcpClient(first.url, user);
      const count = 200;
      for (let i = 0; i < count; i++) {
        void agent
          .callTool({ name: 'send_inquiry', arguments: { question: `q${i}`, idempotencyKey: `k${i}` } })
          .catch(() => {});
      }
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push((await phone.nextNew()).inquiryId);
      const acked = new Map<string, string>();
      let killed: Promise<number | string> | undefined;
      let firstAck!: () => void;
      const someAcked = new Promise<void>((resolve) => {
        firstAck = resolve;
      });
      // Bursts of 10 answers every 10 ms, none waiting for its ack; the plug is pulled once the 100th is
      // sent and at least one ack came back (on a loaded machine the first acks can trail the sends), with
      // answers in flight and more on their way.
      const answers: Promise<void>[] = [];
      for (const [i, inquiryId] of ids.entries()) {
        // time itself is under test: answers keep coming over time, so the kill lands with some in flight.
        if (i % 10 === 0) await sleep(10);
        if (i === 100) {
          await someAcked;
          killed = first.kill('SIGKILL');
        }
        answers.push(
          phone.emit<{ ok: boolean }>('inquiry:answer', { inquiryId, response: `a${i}` }).then(
            (ack) => {
              if (ack.ok) acked.set(inquiryId, `a${i}`);
              firstAck();
            },
            () => {}, // no ack: the node died first; this answer may or may not have landed
          ),
        );
      }
      await Promise.allSettled(answers);
      await (killed ?? first.kill('SIGKILL'));
      phone.socket.disconnect();
      expect(acked.size).toBeGreaterThan(0);
      expect(acked.size).toBeLessThan(count);

      const second = await spawnNode(raceEnv);
      started.push(second);
      const opsToken = await token('ops', 'ops');
      const read = async (inquiryId: string) =>
        (await (
          await fetch(`${second.url}/api/inquiries/${inquiryId}`, {
            headers: { authorization: `Bearer ${opsToken}` },
          })
        ).json()) as Inquiry;
      // Every acknowledged answer is there; the rest are pending or carry their own answer.
      const before = await Promise.all(ids.map(read));
      for (const [i, inquiry] of before.entries()) {
        const mine = acked.get(inquiry.inquiryId);
        if (mine) expect(inquiry).toMatchObject({ status: 'answered', answer: mine });
        else if (inquiry.status !== 'pending')
          expect(inquiry).toMatchObject({ status: 'answered', answer: `a${i}` });
      }
      // Answering everything again: only the still-pending ones are won; no answer changes.
      const phone2 = await device(second.url, user);
      const again = await Promise.all(
        ids.map((inquiryId) =>
          phone2.emit<{ ok: boolean }>('inquiry:answer', { inquiryId, response: 'second' }),
        ),
      );
      const after = await Promise.all(ids.map(read));
      for (const [i, inquiry] of after.entries()) {
        const earlier = before[i] as Inquiry;
        expect(again[i]?.ok).toBe(earlier.status === 'pending');
        expect(inquiry.answer).toBe(earlier.status === 'pending' ? 'second' : earlier.answer);
      }
      // The decision log (kept in the same file) holds at most one outcome per inquiry.
      const seen = new Map<string, number>();
      let cursor: string | undefined;
      do {
        const page = (await (
          await fetch(`${second.url}/api/decisions?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
            headers: { authorization: `Bearer ${opsToken}` },
          })
        ).json()) as { items: { inquiryId: string }[]; nextCursor: string | null };
        for (const item of page.items) seen.set(item.inquiryId, (seen.get(item.inquiryId) ?? 0) + 1);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(ids.filter((id) => (seen.get(id) ?? 0) > 1)).toEqual([]);
      // The audit append runs off the answer's path, after the resolve and before the ack: every
      // acknowledged answer has its record; one resolved in the instant before the kill may not.
      expect([...acked.keys()].filter((id) => seen.get(id) !== 1)).toEqual([]);
      const pendingAtRestart = before.filter((i) => i.status === 'pending').map((i) => i.inquiryId);
      expect(pendingAtRestart.filter((id) => seen.get(id) !== 1)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
