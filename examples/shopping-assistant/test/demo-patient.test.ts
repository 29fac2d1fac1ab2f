import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import { stockIn } from '../src/planner/candidates.js';
import type { TranscriptEvent } from '../src/transcript/events.js';
import { type LiveNode, runDemo, scriptedDevice, startLiveNode } from './live.js';
import { checkRecommendations } from './shopper.js';

const catalogue = await loadCatalogue();
const newUser = () => `patient-${randomUUID().slice(0, 8)}`;
type StillOpen = Extract<TranscriptEvent, { type: 'still-open' }>;

describe('the demo with --patient: the customer answers after the hold (a 3 s hold)', () => {
  let live: LiveNode;
  beforeAll(async () => {
    live = await startLiveNode({
      HITL_DEVICE_TIMEOUT_MS: '1000',
      HITL_SERVICE_TIMEOUT_MS: '3000',
      HITL_CLIENT_TIMEOUT_MS: '5000',
      HITL_HEARTBEAT_MS: '500',
    });
  });
  afterAll(async () => {
    await live?.close();
  });

  it('asks with an answer window, gets pending at the hold, and collects the late answer with get_inquiry', async () => {
    const user = newUser();
    const target = catalogue.find((p) => p.type === 'hoodie' && stockIn(p, 'S') > 0 && p.price > 50)!;
    const budget = Math.ceil(target.price);
    // The person opens the notification 7 s later: two holds have ended by then.
    const device = await scriptedDevice(live, user, () => ({
      answer: { size: 'S', colour: target.colour, budget },
      afterMs: 7000,
    }));
    const started = Date.now();
    const run = await runDemo(
      ['--json', '--patient', '--style', 'form', '--user', user, 'a hoodie'],
      live.env,
    );
    await device.close();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(6500);
    const form = device.seen[0]!;
    // The question stays open for a day (the default window), with no device countdown of 1 s.
    expect(form.deadlines.answerBy).toBeGreaterThan(Date.now() + 23 * 60 * 60_000);
    expect(device.acks).toEqual([{ ok: true, status: 'answered' }]);
    const result = run.json!;
    const stillOpen = result.events.filter((e): e is StillOpen => e.type === 'still-open');
    expect(stillOpen.length).toBeGreaterThanOrEqual(1);
    expect(stillOpen.map((e) => e.checks)).toEqual(stillOpen.map((_, i) => i + 1));
    expect(stillOpen[0]?.inquiryId).toBe(form.inquiryId);
    expect(result.facts).toMatchObject({
      size: { value: 'S', source: 'customer' },
      colour: { value: target.colour, source: 'customer' },
      budget: { value: budget, source: 'customer' },
    });
    expect(result.ending).toBe('recommended');
    for (const check of checkRecommendations(result, catalogue)) {
      expect(check).toMatchObject({ sizeInStock: true, colourFits: true, withinBudget: true });
    }
  });

  it('prints the wait in the transcript', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, (inquiry) => ({
      answer: inquiry.options?.[0] ?? '',
      afterMs: inquiry.question.includes('size') ? 4000 : 0,
    }));
    const run = await runDemo(['--patient', '--user', user], live.env);
    await device.close();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /waiting for an answer on your devices \(inquiry \S+\)\n {4}not answered yet; the question stays open on your devices, checking again \(get_inquiry #1\)/,
    );
    expect(run.stdout).toMatch(/✓ customer answered on scripted phone: /);
    expect(run.stdout).toContain('Recommendations:');
  });

  it('when the answer window runs out, the question times out then, and no answer is the customer’s', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, () => ({ ignore: true }));
    const started = Date.now();
    const run = await runDemo(
      ['--json', '--answer-within-ms', '6000', '--style', 'form', '--user', user],
      live.env,
    );
    // The demo's result can come before the device hears the end: wait for the event, then close.
    await vi.waitFor(() => expect(device.resolved).toHaveLength(1), { timeout: 10_000 });
    await device.close();
    expect(run.code).toBe(0);
    // Timed out at the window's end (6 s), not at the 3 s hold.
    expect(Date.now() - started).toBeGreaterThan(5500);
    expect(device.resolved).toEqual([
      expect.objectContaining({ inquiryId: device.seen[0]?.inquiryId, status: 'timed_out' }),
    ]);
    const replies = run.json!.events.filter((e) => e.type === 'reply');
    expect(replies).toHaveLength(1);
    // The in-process decision agent takes the proposed default (fallback default_answer), labelled so.
    const reply = (replies[0] as Extract<TranscriptEvent, { type: 'reply' }>).reply;
    if (reply.kind === 'decided') {
      expect(reply).toMatchObject({ strategy: 'default_answer', trigger: 'service-timer' });
    } else {
      expect(reply).toEqual({ kind: 'timed_out', timer: 'service' });
    }
    expect(run.json!.ending).toBe('recommended');
  });
});
