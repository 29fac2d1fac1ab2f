import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { agent, DESKTOP, overflowX, PHONE, screenshot, structured, useWebNode } from './harness';

/** Long answer windows on the device page: a question that may wait days counts down to `answerBy`. */

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const card = (page: Page, text: string) => page.locator('article', { hasText: text });
const DAY_MS = 86_400_000;
/** Fixed locale and zone, so "answer by" can be checked to the minute. */
const HERE = { locale: 'en-GB', timezoneId: 'UTC' };
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

describe('an answer window on the device page (headless Chromium, real node)', () => {
  let node: RunningNode;
  const web = useWebNode(
    {
      HITL_DEVICE_TIMEOUT_MS: '15000',
      HITL_SERVICE_TIMEOUT_MS: '25000',
      HITL_CLIENT_TIMEOUT_MS: '40000',
    },
    (started) => {
      ({ node } = started);
    },
  );
  const openDevice = (user: string, name: string, options: object) =>
    web.openDevice(user, { ...options, ...HERE }, { device: name });

  it('a 2 s hold with a 3-day window: days left and the end date, no device timeout, answered after the hold', async () => {
    const user = newUser();
    const desktop = await openDevice(user, 'Desktop', DESKTOP);
    const phone = await openDevice(user, 'Phone', PHONE);
    const mcp = await agent(node, user);
    const t0 = Date.now();
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Which week suits you for the visit?',
        options: ['this week', 'next week'],
        timeoutMs: 2000,
        answerWithinMs: 3 * DAY_MS,
      },
    });
    const onDesktop = card(desktop.page, 'Which week suits you');
    const onPhone = card(phone.page, 'Which week suits you');
    await Promise.all([onDesktop.waitFor(), onPhone.waitFor()]);

    // The countdown reads in days and hours, for the eye and for a screen reader (rounded up to the
    // hour, as every countdown rounds up in its smallest unit: "3 d 0 h" for the first hour).
    for (const shown of [onDesktop, onPhone]) {
      const timer = shown.getByRole('timer');
      await expect.poll(() => timer.textContent(), { timeout: 5000 }).toBe('3 d 0 h left');
      await expect(timer.getAttribute('aria-label')).resolves.toBe('3 days left to answer');
      await expect(shown.getByRole('timer', { name: '3 days left to answer' }).count()).resolves.toBe(1);
    }
    // ...and says until when, in this device's time: weekday and hh:mm of answerBy.
    const end = onPhone.locator('.answer-by time');
    const answerBy = Date.parse((await end.getAttribute('datetime')) ?? '');
    expect(answerBy).toBeGreaterThanOrEqual(t0 + 3 * DAY_MS - 1000);
    expect(answerBy).toBeLessThanOrEqual(Date.now() + 3 * DAY_MS + 1000);
    const at = new Date(answerBy);
    // Chromium's en-GB writes the hour with two digits ("00:05") where Node's writes one ("0:05"):
    // compare the weekday, hour and minute as numbers, and reuse the page's own text below.
    const shownText = (await onPhone.locator('.answer-by').textContent()) ?? '';
    const parts = shownText.match(/^answer by (\w{3}) (\d{1,2}):(\d{2})$/);
    expect(parts && [parts[1], Number(parts[2]), Number(parts[3])]).toEqual([
      WEEKDAYS[at.getUTCDay()],
      at.getUTCHours(),
      at.getUTCMinutes(),
    ]);
    const expected = shownText.replace(/^answer by /, '');
    // The system notification says it too.
    expect(
      await desktop.page.evaluate(
        () => (window as unknown as { __notificationBodies: string[] }).__notificationBodies,
      ),
    ).toEqual([`Which week suits you for the visit? (answer by ${expected})`]);
    await expect(end.getAttribute('title')).resolves.toMatch(/^\w+day, \d{1,2} \w+ \d{4} at \d{1,2}:\d{2}$/);
    expect(await overflowX(phone.page)).toBe(0);
    await screenshot(phone.page, 'terminal-answer-window-phone');

    // The hold ends: the agent hears "pending"; the question stays open, calm, on both devices.
    const first = structured(await call);
    expect(first).toMatchObject({ status: 'pending' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    // time itself is under test: past the hold, nothing runs out on either device for a while.
    await phone.page.waitForTimeout(1500);
    for (const page of [desktop, phone]) {
      const shown = card(page.page, 'Which week suits you');
      await expect(shown.isVisible()).resolves.toBe(true);
      await expect(shown.locator('.countdown.urgent').count()).resolves.toBe(0);
      await expect(shown.getByText('Time ran out').count()).resolves.toBe(0);
      expect(page.sent.filter((frame) => frame.includes('inquiry:timeout'))).toEqual([]);
    }

    // Answered on the phone after the hold; the agent collects it with get_inquiry.
    const collected = mcp.callTool({
      name: 'get_inquiry',
      arguments: { inquiryId: first.inquiryId, waitMs: 20_000 },
    });
    await onPhone.getByRole('radio', { name: 'next week' }).tap();
    await onPhone.getByRole('button', { name: 'Answer' }).tap();
    expect(structured(await collected)).toMatchObject({
      inquiryId: first.inquiryId,
      status: 'answered',
      answer: 'next week',
      resolvedBy: { kind: 'human', deviceName: 'Phone' },
    });
    await onDesktop.getByText('Answered on Phone').waitFor();
    // The page's frames were recorded all along: the answer went out, a timeout never did.
    expect(phone.sent.some((frame) => frame.includes('inquiry:answer'))).toBe(true);
    expect([...desktop.sent, ...phone.sent].some((frame) => frame.includes('inquiry:timeout'))).toBe(false);
    expect([...desktop.problems, ...phone.problems]).toEqual([]);
    await mcp.close();
  });

  it('a window that runs out while the page watches: the service ends it at answerBy; the page never reports a timeout', async () => {
    const user = newUser();
    const desktop = await openDevice(user, 'Desktop', DESKTOP);
    const mcp = await agent(node, user);
    const t0 = Date.now();
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Lunch at noon?', timeoutMs: 2000, answerWithinMs: 6000 },
    });
    const asked = card(desktop.page, 'Lunch at noon?');
    await expect(asked.getByRole('timer').textContent()).resolves.toMatch(/^0:0[4-6] left$/);
    await expect(asked.locator('.answer-by').textContent()).resolves.toMatch(
      /^answer by \w{3} \d{1,2}:\d{2}$/,
    );
    const first = structured(await call);
    expect(first.status).toBe('pending');
    // Its countdown points at answerBy (6 s), where a tier-1 timer would fire: none does.
    const ended = await mcp.callTool({
      name: 'get_inquiry',
      arguments: { inquiryId: first.inquiryId, waitMs: 20_000 },
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(5500);
    expect(structured(ended)).toMatchObject({ status: 'timed_out', resolvedBy: { kind: 'service-timer' } });
    await asked.getByText('Time ran out (the service stopped waiting)').waitFor();
    // time itself is under test: the device reports no timeout of its own, for a while after.
    await desktop.page.waitForTimeout(1000);
    // The recording works: the Socket.IO connect packet went out on this socket.
    expect(desktop.sent.some((frame) => frame.startsWith('40'))).toBe(true);
    expect(desktop.sent.filter((frame) => frame.includes('inquiry:timeout'))).toEqual([]);
    expect(desktop.problems).toEqual([]);
    await mcp.close();
  });
});
