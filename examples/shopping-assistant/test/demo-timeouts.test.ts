import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import type { TranscriptEvent } from '../src/transcript/events.js';
import { type LiveNode, runDemo, scriptedDevice, startLiveNode } from './live.js';
import { checkRecommendations, slotAsked } from './shopper.js';

const catalogue = await loadCatalogue();
const newUser = () => `shopper-${randomUUID().slice(0, 8)}`;
type ReplyEvent = Extract<TranscriptEvent, { type: 'reply' }>;

type AskEvent = Extract<TranscriptEvent, { type: 'ask' }>;

/**
 * Nobody answers: each reply must say so, or (when the node runs a fallback decision agent) carry the
 * decision agent's answer, which here is the default the assistant proposed, labelled as the machine's.
 * Either way no fact is ever claimed as the customer's.
 */
function expectNobodyAnswered(events: TranscriptEvent[], trigger: 'device' | 'service') {
  const replies = events.filter((e): e is ReplyEvent => e.type === 'reply');
  const asks = events.filter((e): e is AskEvent => e.type === 'ask');
  expect(replies.length).toBe(asks.length);
  for (const { reply, facts, round } of replies) {
    const asked = asks.find((a) => a.round === round);
    if (reply.kind === 'decided') {
      expect(reply).toMatchObject({ strategy: 'default_answer', trigger: `${trigger}-timer` });
      expect(reply.answer).toEqual(asked?.proposed);
      for (const fact of Object.values(facts)) expect(fact?.source).toBe('decision-agent');
      continue;
    }
    expect(reply).toEqual({ kind: 'timed_out', timer: trigger });
    for (const fact of Object.values(facts)) {
      expect(fact).toMatchObject({
        source: 'assumed',
        note: expect.stringContaining('nobody answered in time'),
      });
    }
  }
}

describe('the demo when nobody answers (tiers shrunk to 1 s / 2 s / 3 s)', () => {
  let live: LiveNode;
  const env = () => ({ ...live.env, HITL_CLIENT_TIMEOUT_MS: '3000' });
  beforeAll(async () => {
    live = await startLiveNode({
      HITL_DEVICE_TIMEOUT_MS: '1000',
      HITL_SERVICE_TIMEOUT_MS: '2000',
      HITL_CLIENT_TIMEOUT_MS: '3000',
      HITL_HEARTBEAT_MS: '500',
    });
  });
  afterAll(async () => {
    await live?.close();
  });

  it('rounds: the service times each question out; the assistant assumes, says so, and recommends', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, () => ({ ignore: true }));
    const started = Date.now();
    const run = await runDemo(['--json', '--user', user], env());
    await device.close();
    expect(run.code).toBe(0);
    const result = run.json!;
    expect(device.seen.map(slotAsked)).toEqual(['size', 'colour', 'budget']);
    // Three questions of about 2 s each: the service tier, not the 3 s client limit, ended each wait.
    expect(Date.now() - started).toBeGreaterThan(5500);
    expect(result.events.filter((e) => e.type === 'reply')).toHaveLength(3);
    expectNobodyAnswered(result.events, 'service');
    expect(result.ending).toBe('recommended');
    for (const check of checkRecommendations(result, catalogue)) expect(check.sizeInStock).toBe(true);
  });

  it('form: the device reports its countdown ran out; the transcript says nobody answered', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, () => ({ reportTimeout: true }));
    const run = await runDemo(['--style', 'form', '--user', user], env());
    await device.close();
    expect(run.code).toBe(0);
    expect(device.acks).toEqual([{ ok: true, status: 'timed_out' }]);
    if (run.stdout.includes('⚙')) {
      expect(run.stdout).toContain(
        '⚙ no human answered; the fallback decision agent decided (default_answer, after device-timer)',
      );
      expect(run.stdout).toMatch(/size \S+ \(decided by the fallback decision agent, not by you\)/);
    } else {
      expect(run.stdout).toContain("⏱ nobody answered in time (the device's countdown ran out)");
      expect(run.stdout).toMatch(
        /size \S+ \(assumed: the size most bought for these; nobody answered in time\)/,
      );
    }
    expect(run.stdout).not.toContain('(your answer)');
    expect(run.stdout).toContain('Recommendations:');
  });
});
