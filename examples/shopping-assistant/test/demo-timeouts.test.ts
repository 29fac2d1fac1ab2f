import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import type { TranscriptEvent } from '../src/transcript/events.js';
import { type LiveNode, runDemo, scriptedDevice, startLiveNode } from './live.js';
import { checkRecommendations, slotAsked } from './shopper.js';

const catalogue = await loadCatalogue();
const newUser = () => `shopper-${randomUUID().slice(0, 8)}`;
type ReplyEvent = Extract<TranscriptEvent, { type: 'reply' }>;

/**
 * Nobody answers: each reply must say so, or (once a fallback decision agent runs on the node) carry
 * the decision agent's answer, labelled as such. Either way the customer's own answer is never claimed.
 */
function expectNobodyAnswered(replies: ReplyEvent[], timer: 'device' | 'service', stdout: string) {
  for (const { reply, facts } of replies) {
    if (reply.kind === 'decided') {
      expect(stdout).toContain('the fallback decision agent decided');
      for (const fact of Object.values(facts)) expect(['decision-agent', 'assumed']).toContain(fact?.source);
      continue;
    }
    expect(reply).toEqual({ kind: 'timed_out', timer });
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
    device.close();
    expect(run.code).toBe(0);
    const result = run.json!;
    expect(device.seen.map(slotAsked)).toEqual(['size', 'colour', 'budget']);
    // Three questions of about 2 s each: the service tier, not the 3 s client limit, ended each wait.
    expect(Date.now() - started).toBeGreaterThan(5500);
    const replies = result.events.filter((e): e is ReplyEvent => e.type === 'reply');
    expect(replies).toHaveLength(3);
    expectNobodyAnswered(replies, 'service', JSON.stringify(result));
    expect(result.ending).toBe('recommended');
    for (const check of checkRecommendations(result, catalogue)) expect(check.sizeInStock).toBe(true);
  });

  it('form: the device reports its countdown ran out; the transcript says nobody answered', async () => {
    const user = newUser();
    const device = await scriptedDevice(live, user, () => ({ reportTimeout: true }));
    const run = await runDemo(['--style', 'form', '--user', user], env());
    device.close();
    expect(run.code).toBe(0);
    expect(device.acks).toEqual([{ ok: true, status: 'timed_out' }]);
    const decided = run.stdout.includes('the fallback decision agent decided');
    if (!decided) {
      expect(run.stdout).toContain("⏱ nobody answered in time (the device's countdown ran out)");
      expect(run.stdout).toMatch(
        /size \S+ \(assumed: the size most bought for these; nobody answered in time\)/,
      );
    }
    expect(run.stdout).not.toContain('(your answer)');
    expect(run.stdout).toContain('Recommendations:');
  });
});
