import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agent,
  launchChromium,
  openApp,
  openContext,
  PHONE,
  startWebNode,
  structured,
  token,
} from './harness';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const connected = (page: Page) => page.locator('[data-status="connected"]').waitFor();
const notifications = (page: Page) =>
  page.evaluate(() => (window as unknown as { __notifications: string[] }).__notifications);
/** Every URL in the page's Cache Storage. */
const cachedUrls = (page: Page) =>
  page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
    }
    return urls;
  });

describe('the phone: installable page, notification, answer with taps (390×844, touch)', () => {
  let node: RunningNode;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    node = await startWebNode({
      HITL_DEVICE_TIMEOUT_MS: '30000',
      HITL_SERVICE_TIMEOUT_MS: '40000',
      HITL_CLIENT_TIMEOUT_MS: '50000',
    });
    browser = await launchChromium();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const openPhone = async (user: string) => {
    const context = await openContext(browser, node, PHONE);
    contexts.push(context);
    const opened = await openApp(context, node, `token=${await token(node, user, 'device')}&device=Phone`);
    await connected(opened.page);
    return { context, ...opened };
  };

  it('an inquiry raises a notification; the person answers with taps; the agent gets the answer', async () => {
    const user = newUser();
    const { page, problems } = await openPhone(user);
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Which size should I order?', options: ['S', 'M', 'L'] },
    });
    const card = page.locator('article', { hasText: 'Which size should I order?' });
    await card.waitFor();
    await expect.poll(() => notifications(page)).toEqual(['Question from shop assistant']);

    await card.getByRole('radio', { name: 'L' }).tap();
    await card.getByRole('button', { name: 'Answer' }).tap();
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'L',
      resolvedBy: { kind: 'human', deviceName: 'Phone' },
    });
    await card.getByText('Answered on this device').waitFor();
    expect(problems).toEqual([]);
    await mcp.close();
  });

  it('is installable: manifest with icons, and a service worker that never caches API or socket traffic', async () => {
    const user = newUser();
    const { page, problems } = await openPhone(user);
    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = await page.evaluate(async (href) => {
      const response = await fetch(href ?? '');
      return { type: response.headers.get('content-type'), body: await response.json() };
    }, manifestHref);
    expect(manifest.type).toContain('application/manifest+json');
    expect(manifest.body).toMatchObject({ short_name: 'HITL', start_url: '/', display: 'standalone' });
    const icons = manifest.body.icons as { src: string; sizes: string }[];
    expect(icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of icons) {
      const type = await page.evaluate(
        async (src) => (await fetch(src)).headers.get('content-type'),
        icon.src,
      );
      expect(type).toBe('image/png');
    }

    // The worker takes control of the page it was registered from.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 10_000,
    });
    // Live traffic while controlled: an API read and a Socket.IO polling handshake (the device's own
    // socket is a WebSocket, which no service worker sees).
    const deviceToken = await token(node, user, 'device');
    const statuses = await page.evaluate(async (bearer) => {
      const api = await fetch('/api/inquiries', { headers: { authorization: `Bearer ${bearer}` } });
      const socket = await fetch('/socket.io/?EIO=4&transport=polling');
      return [api.status, socket.status];
    }, deviceToken);
    expect(statuses).toEqual([200, 200]);
    await page.reload();
    await connected(page);

    const urls = await cachedUrls(page);
    const paths = urls.map((u) => new URL(u).pathname + new URL(u).search);
    expect(paths).toContain('/');
    expect(paths.some((p) => p.startsWith('/assets/index-'))).toBe(true);
    expect(paths.filter((p) => /^\/(api|mcp|socket\.io)/.test(p))).toEqual([]);
    // The device link's token never lands in the cache.
    expect(urls.filter((u) => u.includes('token='))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('opens from the cache while the node is down, and reconnects when it is back', async () => {
    const user = newUser();
    // A node of its own, stopped and restarted on the same port.
    const own = await startWebNode();
    const context = await openContext(browser, own, PHONE);
    contexts.push(context);
    const { page } = await openApp(context, own, `token=${await token(own, user, 'device')}&device=Phone`);
    await connected(page);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 10_000,
    });
    await own.close();

    await page.reload();
    await page.getByRole('heading', { name: 'HITL' }).waitFor();
    await expect.poll(() => page.locator('[data-status]').getAttribute('data-status')).toBe('reconnecting');
    const back = await startWebNode({ PORT: String(own.port) });
    try {
      await page.locator('[data-status="connected"]').waitFor({ timeout: 20_000 });
    } finally {
      await back.close();
    }
  });
});
