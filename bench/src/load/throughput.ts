import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeHist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { Faults, now, pool, sleep, until, within } from './util.js';

export interface ThroughputParams {
  secret: string;
  nodeUrls: string[];
  worker: number;
  /** Calls kept in flight by this process (closed loop), one user per slot. */
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  tag: string;
}

export interface ThroughputResult {
  /** Cycles that ended inside the measured window. */
  completed: number;
  /** Cycles this process ran in all (warm-up and tail included); each was checked. */
  cycles: number;
  windowMs: number;
  hist: string;
  faults: Record<string, number>;
  samples: string[];
}

/**
 * Full cycles in a closed loop: send_inquiry on one node → `inquiry:new` on the user's device,
 * connected to the other node → the device answers at once → the call resumes with that answer.
 */
export async function throughputLoad(p: ThroughputParams, ctx: TaskContext): Promise<ThroughputResult> {
  const faults = new Faults();
  const clients: Client[] = [];
  const devices: BenchDevice[] = [];
  /** question → expected answer; the device answers only questions of this run. */
  const asked = new Set<string>();
  const answeredIds = new Map<string, number>();
  const resolvedIds = new Map<string, number>();
  const node = (i: number) => p.nodeUrls[i % p.nodeUrls.length] as string;
  await pool(p.concurrency, 25, async (s) => {
    const user = `${p.tag}-w${p.worker}-u${s}`;
    clients[s] = await agentClient(node(s + p.worker), await token(p.secret, user, 'agent'));
    devices[s] = await openDevice(node(s + p.worker + 1), await token(p.secret, user, 'device'), 'bench', {
      onNew: (inquiry) => {
        if (!asked.has(inquiry.question)) return;
        const seen = answeredIds.get(inquiry.inquiryId) ?? 0;
        answeredIds.set(inquiry.inquiryId, seen + 1);
        if (seen > 0) return faults.add('duplicate_new', inquiry.inquiryId);
        (devices[s] as BenchDevice)
          .answer(inquiry.inquiryId, `a:${inquiry.question}`)
          .then(
            (ack) => ack.ok || faults.add('answer_rejected', `${inquiry.question}: ${JSON.stringify(ack)}`),
          )
          .catch((error: unknown) => faults.add('answer_failed', `${inquiry.question}: ${error}`));
      },
      onResolved: (event) => {
        const seen = resolvedIds.get(event.inquiryId) ?? 0;
        resolvedIds.set(event.inquiryId, seen + 1);
        if (seen > 0) faults.add('duplicate_resolved', event.inquiryId);
      },
    });
  });
  ctx.emit('ready');
  await ctx.signal('go');

  const hist = newHist();
  const start = now();
  const measureFrom = start + p.warmupMs;
  const measureTo = measureFrom + p.durationMs;
  let completed = 0;
  let cycles = 0;
  const ids = new Set<string>();
  const lane = async (s: number) => {
    for (let seq = 0; now() < measureTo; seq++) {
      const question = `${p.tag} w${p.worker} s${s} n${seq}`;
      asked.add(question);
      const t0 = now();
      try {
        const result = await sendInquiry(clients[s] as Client, { question }, { timeoutMs: 60_000 });
        const t1 = now();
        cycles++;
        if (t1 >= measureFrom && t1 <= measureTo) {
          completed++;
          recordMs(hist, t1 - t0);
        }
        if (result.status !== 'answered' || result.answer !== `a:${question}`)
          faults.add('wrong_answer', `${question}: ${JSON.stringify(result)}`);
        if (ids.has(result.inquiryId as string)) faults.add('inquiry_reused', question);
        ids.add(result.inquiryId as string);
      } catch (error) {
        faults.add('call_failed', `${question}: ${error}`);
        await sleep(100);
      }
      asked.delete(question);
    }
  };
  await within(
    Promise.all(Array.from({ length: p.concurrency }, (_, s) => lane(s))),
    p.warmupMs + p.durationMs + 120_000,
    'throughput lanes',
  );
  // Every resumed call's inquiry must reach its device as resolved exactly once.
  await until(() => [...ids].every((id) => resolvedIds.has(id)), 20_000, 'resolved events').catch(() =>
    faults.add('resolved_missing', `${[...ids].filter((id) => !resolvedIds.has(id)).length} inquiries`),
  );
  await Promise.all(devices.map((device) => device.settled()));
  for (const device of devices) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return {
    completed,
    cycles,
    windowMs: p.durationMs,
    hist: encodeHist(hist),
    faults: faults.counts,
    samples: faults.samples,
  };
}
