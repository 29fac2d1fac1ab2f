import { randomUUID } from 'node:crypto';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  launchChromium,
  openApp,
  openContext,
  PHONE,
  pendingInquiry,
  screenshot,
  token,
  WEB_DIST,
} from './harness';

/**
 * The node's clock runs `skew` ms ahead of the wall clock. Moving it forward between a question and its
 * answer gives an answer time of minutes without waiting minutes (timers still run on real time).
 */
let skew = 0;
const skewedClock = {
  now: () => Date.now() + skew,
  setTimeout: (fn: () => void, ms: number) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle: unknown) => globalThis.clearTimeout(handle as NodeJS.Timeout),
};

describe('the ops answer-time chart in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;

  beforeAll(async () => {
    node = await startNode(
      loadConfig({
        PORT: '0',
        HITL_SECRET: 'web-e2e-secret-long-enough-for-hs256!!!!',
        HITL_STATE_DIR: '/nonexistent-unused',
        HITL_STORE: 'memory',
        LOG_LEVEL: 'silent',
        HITL_DRAIN_MS: '0',
        // Long tiers: the jumps of the clock below must not time the questions out.
        HITL_DEVICE_TIMEOUT_MS: '3600000',
        HITL_SERVICE_TIMEOUT_MS: '3700000',
        HITL_CLIENT_TIMEOUT_MS: '3800000',
      }),
      { webRoot: WEB_DIST, clock: skewedClock },
    );
    browser = await launchChromium();
    // Three answers taking 40 s, 2 min 20 s and 9 min 35 s.
    for (const takesMs of [40_000, 140_000, 575_000]) await answeredAfter(takesMs);
  });
  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function answeredAfter(takesMs: number): Promise<void> {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const question = `Took ${takesMs} ms?`;
    const mcp = await agent(node, user);
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question } }, undefined, {
      timeout: 60_000,
    });
    const headers = {
      Authorization: `Bearer ${await token(node, user, 'device', 'Laptop')}`,
      'content-type': 'application/json',
    };
    const pending = await pendingInquiry(node, headers, question);
    skew += takesMs;
    const answered = await fetch(`${node.url}/api/inquiries/${pending.inquiryId}/answer`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ response: 'yes' }),
    });
    expect(answered.status).toBe(200);
    await call;
    await mcp.close();
  }

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390 px phone', PHONE],
  ] as const) {
    it(`labels the time axis on one line each, inside the chart (${label})`, async () => {
      const context = await openContext(browser, node, options);
      const { page } = await openApp(context, node, `token=${await token(node, 'ops-person', 'ops')}`);
      const chart = page.getByRole('figure', { name: 'Human answer time percentiles' });
      await chart.locator('.recharts-bar-rectangle').first().waitFor();
      const ticks = chart.locator('text.recharts-cartesian-axis-tick-value[text-anchor="end"]');
      await expect.poll(() => ticks.count()).toBeGreaterThan(2);
      const labels = await ticks.evaluateAll((texts) => {
        const figure = texts[0]?.closest('figure')?.getBoundingClientRect();
        return texts.map((text) => ({
          text: text.textContent,
          lines: text.querySelectorAll('tspan').length,
          left: text.getBoundingClientRect().left - (figure?.left ?? 0),
        }));
      });
      // The largest tick is in minutes (the slowest answer took 9 min 35 s).
      expect(labels.map((l) => l.text).join(' | ')).toMatch(/min/);
      for (const label of labels) {
        expect(label, `tick "${label.text}"`).toMatchObject({ lines: 1 });
        expect(label.left, `tick "${label.text}" starts left of the chart`).toBeGreaterThanOrEqual(0);
      }
      await screenshot(page, `ops-answer-time-axis-${label === 'desktop' ? 'desktop' : '390'}`);
      await context.close();
    });
  }
});
