import { randomUUID } from 'node:crypto';
import type { DeviceClient } from '@hitl/client';
import type { RunningNode } from '@hitl/inquiry';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { attachNativeShell } from '../src/capacitor.js';
import { notificationId } from '../src/index.js';
import { installBrowserGlobals, RecordingNotification, testDocument } from './browser-globals.js';
import { agent, device, startRealNode, structured, until } from './real-node.js';

// Capacitor's own plugins (`@capacitor/app`, `@capacitor/local-notifications`) in their web
// implementations: outside a native app, `attachNativeShell` runs on exactly these.
installBrowserGlobals();

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
/** How long a notification may take to show or close (a wait on it, through `vi.waitFor`). */
const NOTICED = { timeout: 10_000, interval: 20 };

describe('the shell adapter on Capacitor plugins (web implementations) and a real node', () => {
  let node: RunningNode;
  const cleanup: (() => unknown)[] = [];
  beforeAll(async () => {
    node = await startRealNode();
  });
  beforeEach(() => {
    RecordingNotification.reset('default');
    testDocument.hidden = false;
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  afterAll(async () => {
    await node?.close();
  });

  const attach = (client: DeviceClient, reconnect: () => void = () => undefined, minPauseMs?: number) => {
    const errors: unknown[] = [];
    const handle = attachNativeShell({
      device: client,
      reconnect,
      onError: (e) => errors.push(e),
      ...(minPauseMs !== undefined ? { minPauseMs } : {}),
    });
    cleanup.push(() => handle.detach());
    return { handle, errors };
  };
  const open = async (user: string, name: string) => {
    const client = await device(node, user, name);
    cleanup.push(() => client.close());
    await until(client, (s) => s.synced);
    return client;
  };

  it('asks for permission once, raises a notification for a new inquiry, and removes it when another device answers', async () => {
    const user = newUser();
    const phone = await open(user, 'Phone');
    const laptop = await open(user, 'Laptop');
    const { handle, errors } = attach(phone);
    expect(await handle.permission).toBe('granted');
    expect(RecordingNotification.requests).toBe(1);

    const mcp = await agent(node, user);
    cleanup.push(() => mcp.close());
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Which **size** should I order?' },
    });
    await vi.waitFor(() => expect(RecordingNotification.shown).toHaveLength(1), NOTICED);
    const [shown] = RecordingNotification.shown;
    const inquiryId = (await until(phone, (s) => s.inquiries.length === 1)).inquiries[0]!.inquiryId;
    expect(shown).toMatchObject({
      title: 'Question from shop assistant',
      body: 'Which size should I order?',
      tag: String(notificationId(inquiryId)),
      closed: false,
    });

    expect(await laptop.answer(inquiryId, 'M')).toEqual({ ok: true, status: 'answered' });
    await vi.waitFor(() => expect(shown?.closed).toBe(true), NOTICED);
    expect(structured(await call)).toMatchObject({ answer: 'M', resolvedBy: { deviceName: 'Laptop' } });
    expect(errors).toEqual([]);
  });

  it('a question with an answer window: the notification says until when and stays past the hold; no device timeout', async () => {
    const user = newUser();
    const phone = await open(user, 'Phone');
    const laptop = await open(user, 'Laptop');
    const timeouts: string[] = [];
    phone.on('timeout', (id) => timeouts.push(id));
    const { handle, errors } = attach(phone);
    expect(await handle.permission).toBe('granted');
    const mcp = await agent(node, user);
    cleanup.push(() => mcp.close());
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Which week suits you?', timeoutMs: 2000, answerWithinMs: 3 * 86_400_000 },
    });
    await vi.waitFor(() => expect(RecordingNotification.shown).toHaveLength(1), NOTICED);
    const [shown] = RecordingNotification.shown;
    const held = (await until(phone, (s) => s.inquiries.length === 1)).inquiries[0]!;
    // The phone counts down to the end of the window (on its own clock), three days out.
    expect(held.deadlines.answerBy).toBeDefined();
    expect(held.localDeviceAt).toBe((held.deadlines.answerBy ?? 0) - held.skewMs);
    expect(held.localDeviceAt).toBeGreaterThan(Date.now() + 3 * 86_400_000 - 60_000);
    expect(shown?.body).toMatch(/^Which week suits you\? \(answer by \S+ \d{1,2}:\d{2}( [AP]M)?\)$/);

    // The hold ends: the agent hears "pending"; the question and its notification stay.
    const first = structured(await call);
    expect(first.status).toBe('pending');
    // time itself is under test: past the hold, nothing closes the notification for a while.
    await new Promise((r) => setTimeout(r, 500));
    expect(shown?.closed).toBe(false);
    expect(phone.getSnapshot().inquiries.map((i) => i.inquiryId)).toEqual([held.inquiryId]);
    expect(timeouts).toEqual([]);

    const collected = mcp.callTool({
      name: 'get_inquiry',
      arguments: { inquiryId: first.inquiryId, waitMs: 20_000 },
    });
    expect(await laptop.answer(held.inquiryId, 'next week')).toEqual({ ok: true, status: 'answered' });
    await vi.waitFor(() => expect(shown?.closed).toBe(true), NOTICED);
    expect(structured(await collected)).toMatchObject({
      status: 'answered',
      answer: 'next week',
      resolvedBy: { kind: 'human', deviceName: 'Laptop' },
    });
    expect(timeouts).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('with notifications denied, asks nothing more and raises nothing', async () => {
    RecordingNotification.reset('denied');
    const user = newUser();
    const phone = await open(user, 'Phone');
    const { handle } = attach(phone);
    expect(await handle.permission).toBe('denied');
    const mcp = await agent(node, user);
    cleanup.push(() => mcp.close());
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Quietly?' } });
    const { inquiries } = await until(phone, (s) => s.inquiries.length === 1);
    expect(await phone.answer(inquiries[0]!.inquiryId, 'yes')).toMatchObject({ ok: true });
    await call;
    expect(RecordingNotification.requests).toBe(0);
    expect(RecordingNotification.shown).toEqual([]);
  });

  it('coming back after a while in the background opens a fresh connection that re-syncs', async () => {
    RecordingNotification.reset('granted');
    const user = newUser();
    const first = await open(user, 'Phone');
    let current = first;
    let reconnects = 0;
    const reconnect = () => {
      // What the web app does: drop the old client, make a new one (which syncs on connect).
      reconnects += 1;
      current.close();
      void open(user, 'Phone').then((fresh) => {
        current = fresh;
      });
    };
    attach(first, reconnect, 200);

    testDocument.setHidden(true);
    // While the app is away an inquiry arrives.
    const mcp = await agent(node, user);
    cleanup.push(() => mcp.close());
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Asked while away' } });
    // time itself is under test: away longer than the 200 ms pause that calls for a fresh connection.
    await new Promise((r) => setTimeout(r, 300));
    testDocument.setHidden(false);
    expect(reconnects).toBe(1);
    await vi.waitFor(() => {
      expect(current).not.toBe(first);
      expect(current.getSnapshot().inquiries).toHaveLength(1);
    }, NOTICED);
    expect(first.getSnapshot().status).toBe('closed');
    const synced = current.getSnapshot().inquiries[0]!;
    expect(synced.question).toBe('Asked while away');
    expect(await current.answer(synced.inquiryId, 'done')).toMatchObject({ ok: true });
    expect(structured(await call).answer).toBe('done');
  });

  it('a short trip away with the connection up does not reconnect; after detach nothing happens', async () => {
    const user = newUser();
    const phone = await open(user, 'Phone');
    let reconnects = 0;
    const { handle } = attach(phone, () => reconnects++, 60_000);
    await handle.permission;
    testDocument.setHidden(true);
    testDocument.setHidden(false);
    // time itself is under test: no reconnect follows for a while.
    await new Promise((r) => setTimeout(r, 50));
    expect(reconnects).toBe(0);

    await handle.detach();
    testDocument.setHidden(true);
    testDocument.setHidden(false);
    const mcp = await agent(node, user);
    cleanup.push(() => mcp.close());
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'After detach' } });
    const { inquiries } = await until(phone, (s) => s.inquiries.length === 1);
    await phone.answer(inquiries[0]!.inquiryId, 'ok');
    await call;
    expect(reconnects).toBe(0);
    expect(RecordingNotification.shown).toEqual([]);
  });
});
