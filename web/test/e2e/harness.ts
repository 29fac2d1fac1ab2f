import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type { Inquiry, InquiryResult, Page as ListPage, Role } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';

/** A user of its own for one test: `u-` and 8 random hex digits. */
export const newUser = () => `u-${randomUUID().slice(0, 8)}`;

export const WEB_DIST = fileURLToPath(new URL('../../dist', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../screenshots', import.meta.url));

/** Debian's chromium; never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A real node serving the built web app (memory store; tiers from `env`). */
export async function startWebNode(env: Record<string, string> = {}): Promise<RunningNode> {
  if (!existsSync(`${WEB_DIST}/index.html`)) {
    throw new Error(`${WEB_DIST}/index.html is missing: run "npm run build -w web" first`);
  }
  const config = loadConfig({
    PORT: '0',
    HITL_SECRET: 'web-e2e-secret-long-enough-for-hs256!!!!',
    HITL_STATE_DIR: '/nonexistent-unused',
    HITL_STORE: 'memory',
    LOG_LEVEL: 'silent',
    HITL_SWEEP_MS: '100',
    HITL_DRAIN_MS: '0',
    ...env,
  });
  return startNode(config, { webRoot: WEB_DIST });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export const token = (node: RunningNode, sub: string, role: Role, name?: string) =>
  node.tokens.sign({ sub, role, ...(name ? { name } : {}) });

/** Tiers long enough that nothing times out while a browser test clicks through a card. */
export const UNHURRIED_TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '30000',
  HITL_SERVICE_TIMEOUT_MS: '40000',
  HITL_CLIENT_TIMEOUT_MS: '60000',
};

export const DESKTOP = { viewport: { width: 1280, height: 860 } };
export const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
};

/**
 * A browser context whose page records every system notification it raises (titles in
 * `__notifications`, bodies in `__notificationBodies`; the real constructor still runs).
 */
export async function openContext(
  browser: Browser,
  node: RunningNode,
  options: object,
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.grantPermissions(['notifications'], { origin: node.url });
  await context.addInitScript(() => {
    const seen: string[] = [];
    const bodies: string[] = [];
    (window as unknown as { __notifications: string[] }).__notifications = seen;
    (window as unknown as { __notificationBodies: string[] }).__notificationBodies = bodies;
    const Original = window.Notification;
    class Recording extends Original {
      constructor(title: string, init?: NotificationOptions) {
        seen.push(title);
        bodies.push(init?.body ?? '');
        super(title, init);
      }
    }
    Object.defineProperty(window, 'Notification', { value: Recording, configurable: true });
  });
  return context;
}

export interface OpenPage {
  page: Page;
  /** Console errors and CSP reports seen so far. */
  problems: string[];
  dialogs: string[];
  /** Every WebSocket frame the page sent (Socket.IO packets as text), oldest first. */
  sent: string[];
}

/** Opens the terminal (or console) the way a person does: the URL `hitl serve` prints. */
export async function openApp(context: BrowserContext, node: RunningNode, query: string): Promise<OpenPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  const sent: string[] = [];
  page.on('websocket', (socket) => {
    socket.on('framesent', (frame) => sent.push(String(frame.payload)));
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${node.url}/?${query}`);
  return { page, problems, dialogs, sent };
}

/** A device page {@link openDeviceIn} opened: its context and the device token in its URL too. */
export interface DevicePage extends OpenPage {
  context: BrowserContext;
  token: string;
}

/**
 * Opens `user`'s device page in `context` the way a person does (the URL with a device token, named
 * `device` when given) and waits until it is connected.
 */
export async function openDeviceIn(
  context: BrowserContext,
  node: RunningNode,
  user: string,
  device?: string,
): Promise<DevicePage> {
  const deviceToken = await token(node, user, 'device');
  const name = device === undefined ? '' : `&device=${encodeURIComponent(device)}`;
  const opened = await openApp(context, node, `token=${deviceToken}${name}`);
  await opened.page.locator('[data-status="connected"]').waitFor();
  return { ...opened, context, token: deviceToken };
}

/**
 * How long an ended card stays on screen to say how it ended: 4 s after this device's own answer, 6 s
 * after another's (CLOSE_AFTER_MS, src/terminal/use-device.ts).
 */
export const CLOSING_PAUSE_MS = 6_000;

/**
 * Runs the context's pages on Playwright's clock (time flows as usual; call before opening a page), so
 * that {@link endClosingPause} can skip the pause an ended card stays for.
 */
export const installPageClock = (context: BrowserContext) => context.clock.install();

/**
 * Jumps the page's clock past the closing pause: the card's own timer fires now instead of 4–6 s of
 * idle waiting. Only for a page with no pending card left (its countdown jumps too).
 */
export const endClosingPause = (page: Page) => page.clock.fastForward(CLOSING_PAUSE_MS);

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

/** An agent: the official MCP SDK client over Streamable HTTP. */
export async function agent(node: RunningNode, user: string): Promise<Client> {
  const client = new Client({ name: 'web-e2e-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
    requestInit: {
      headers: { Authorization: `Bearer ${await token(node, user, 'agent', 'shop assistant')}` },
    },
  });
  await client.connect(transport);
  return client;
}

/** The pending inquiry that asks `question`, once the held call has created it (polled over REST). */
export async function pendingInquiry(
  node: RunningNode,
  headers: Record<string, string>,
  question: string,
): Promise<Inquiry> {
  return vi.waitFor(
    async () => {
      const response = await fetch(`${node.url}/api/inquiries?status=pending`, { headers });
      const page = (await response.json()) as ListPage<Inquiry>;
      const found = page.items.find((i) => i.question === question);
      if (!found) throw new Error(`no pending inquiry asks ${JSON.stringify(question)} yet`);
      return found;
    },
    { timeout: 15_000, interval: 50 },
  );
}

export const structured = (result: unknown) =>
  (result as { structuredContent: InquiryResult }).structuredContent;

/** Horizontal overflow of the page, in px (0 when it fits its viewport). */
export const overflowX = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** What {@link useWebNode} hands a test file. */
export interface WebNodeScope {
  /** Closes `context` after the test. */
  keep(context: BrowserContext): BrowserContext;
  /**
   * `user`'s connected device page in a new context of `options` (with recorded notifications, kept),
   * named `device` when given, on Playwright's clock when `clock` is set ({@link installPageClock}).
   */
  openDevice(user: string, options: object, page?: { device?: string; clock?: boolean }): Promise<DevicePage>;
}

/**
 * The usual set-up of a browser test file: one node (tiers from `env`) and one Chromium for the
 * describe block, every context handed to `keep` (or opened by `openDevice`) closed after each test.
 * `started` hands the node and browser over once they run.
 */
export function useWebNode(
  env: Record<string, string>,
  started: (parts: { node: RunningNode; browser: Browser }) => void,
): WebNodeScope {
  const contexts: BrowserContext[] = [];
  let parts: { node: RunningNode; browser: Browser } | undefined;
  beforeAll(async () => {
    const node = await startWebNode(env);
    parts = { node, browser: await launchChromium() };
    started(parts);
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await parts?.browser.close();
    await parts?.node.close();
  });
  const keep = (context: BrowserContext) => {
    contexts.push(context);
    return context;
  };
  return {
    keep,
    async openDevice(user, options, { device, clock = false } = {}) {
      if (!parts) throw new Error('useWebNode: openDevice before the node and browser started');
      const context = keep(await openContext(parts.browser, parts.node, options));
      if (clock) await installPageClock(context);
      return openDeviceIn(context, parts.node, user, device);
    },
  };
}
