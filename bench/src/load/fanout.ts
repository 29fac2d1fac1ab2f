import { performance } from 'node:perf_hooks';
import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeHist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { Faults, now, pool, sleep, until, within } from './util.js';

export interface FanoutParams {
  secret: string;
  nodeUrls: string[];
  /** This worker's users are `userOffset .. userOffset + users - 1` (the same numbering in every worker). */
  userOffset: number;
  users: number;
  devicesPerUser: number;
  /** Inquiries per user, one round after another. */
  rounds: number;
  /** Inquiries this worker starts per second (open loop). */
  ratePerSec: number;
  tag: string;
}

export interface FanoutResult {
  /** send_inquiry sent → the last of the user's devices has `inquiry:new`. */
  all: string;
  /** send_inquiry sent → the first device has it. */
  first: string;
  /** The node accepted the call (the inquiry's `createdAt`, node clock) → the last device has it. */
  accepted: string;
  inquiries: number;
  delivered: number;
  expected: number;
  resolvedSeen: number;
  faults: Record<string, number>;
  samples: string[];
}

interface Entry {
  user: number;
  t0: number;
  arrivals: (number | undefined)[];
  inquiryId?: string;
  resolved: number[];
  result?: Promise<InquiryResult | undefined>;
}

/**
 * Every user has `devicesPerUser` devices spread over the nodes and one agent; inquiries start at a
 * steady rate, and each device's `inquiry:new` is timed from the moment the call was sent. Once all
 * devices have it, the first device answers, and every device must then see it resolved once.
 */
export async function fanoutLoad(p: FanoutParams, ctx: TaskContext): Promise<FanoutResult> {
  const faults = new Faults();
  const all = newHist();
  const first = newHist();
  const entries = new Map<string, Entry>();
  const byId = new Map<string, Entry>();
  const clients: Client[] = [];
  const devices: BenchDevice[][] = [];
  const node = (i: number) => p.nodeUrls[i % p.nodeUrls.length] as string;
  let delivered = 0;
  let resolvedSeen = 0;

  const accepted = newHist();
  const arrived = (u: number, k: number, question: string, inquiryId: string, createdAt: number) => {
    const entry = entries.get(question);
    if (!entry) return;
    if (entry.arrivals[k] !== undefined) return faults.add('duplicate_new', `${question} device ${k}`);
    entry.arrivals[k] = now();
    entry.inquiryId ??= inquiryId;
    byId.set(inquiryId, entry);
    delivered++;
    if (entry.arrivals.some((t) => t === undefined)) return;
    const times = entry.arrivals as number[];
    recordMs(all, Math.max(...times) - entry.t0);
    recordMs(first, Math.min(...times) - entry.t0);
    // Same machine, same wall clock: the node stamped createdAt (whole ms) when it accepted the call.
    recordMs(accepted, performance.timeOrigin + Math.max(...times) - createdAt);
    ((devices[u] as BenchDevice[])[0] as BenchDevice)
      .answer(inquiryId, `a:${question}`)
      .then((ack) => ack.ok || faults.add('answer_rejected', question))
      .catch(() => faults.add('answer_failed', question));
  };
  await pool(p.users, 25, async (u) => {
    const g = p.userOffset + u;
    const user = `${p.tag}-u${g}`;
    clients[u] = await agentClient(node(g), await token(p.secret, user, 'agent'));
    const deviceToken = await token(p.secret, user, 'device');
    devices[u] = await Promise.all(
      Array.from({ length: p.devicesPerUser }, (_, k) =>
        openDevice(node(g + k), deviceToken, `d${k}`, {
          onNew: (inquiry) => arrived(u, k, inquiry.question, inquiry.inquiryId, inquiry.createdAt),
          onResolved: (event) => {
            const entry = byId.get(event.inquiryId);
            if (!entry || entry.user !== u) return;
            if (entry.resolved[k]) faults.add('duplicate_resolved', `${event.inquiryId} device ${k}`);
            entry.resolved[k] = 1;
            resolvedSeen++;
          },
        }),
      ),
    );
  });
  ctx.emit('ready', { devices: p.users * p.devicesPerUser });
  await ctx.signal('go');

  const total = p.users * p.rounds;
  const start = now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / p.ratePerSec;
    if (due > now()) await sleep(due - now());
    const u = i % p.users;
    const question = `${p.tag} u${p.userOffset + u} r${Math.floor(i / p.users)}`;
    const entry: Entry = {
      user: u,
      t0: now(),
      arrivals: Array(p.devicesPerUser).fill(undefined),
      resolved: [],
    };
    entries.set(question, entry);
    entry.result = sendInquiry(clients[u] as Client, { question }).then(
      (result) => {
        if (result.status !== 'answered' || result.answer !== `a:${question}`)
          faults.add('wrong_answer', `${question}: ${JSON.stringify(result)}`);
        return result;
      },
      (error: unknown) => {
        faults.add('call_failed', `${question}: ${error}`);
        return undefined;
      },
    );
  }
  const expected = total * p.devicesPerUser;
  await until(
    () => delivered >= expected,
    60_000,
    () => `deliveries ${delivered} of ${expected}`,
  ).catch((error: Error) => faults.add('not_delivered', `${expected - delivered} missing: ${error.message}`));
  // Calls whose push went missing are answered anyway, so nothing is left suspended.
  for (const [question, entry] of entries) {
    if (entry.arrivals.every((t) => t !== undefined) || !entry.inquiryId) continue;
    void devices[entry.user]?.[0]?.answer(entry.inquiryId, `a:${question}`);
  }
  await within(Promise.all([...entries.values()].map((e) => e.result)), 120_000, 'fan-out calls');
  await until(() => resolvedSeen >= expected, 30_000, 'resolved events').catch(() =>
    faults.add('resolved_missing', `${expected - resolvedSeen} devices did not see a resolution`),
  );
  await Promise.all(devices.flat().map((device) => device.settled()));
  for (const set of devices) for (const device of set) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return {
    all: encodeHist(all),
    first: encodeHist(first),
    accepted: encodeHist(accepted),
    inquiries: total,
    delivered,
    expected,
    resolvedSeen,
    faults: faults.counts,
    samples: faults.samples,
  };
}
