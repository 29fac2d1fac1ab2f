import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeHist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { Faults, now, pool, sleep, within } from './util.js';

export interface OpenLoopParams {
  secret: string;
  nodeUrls: string[];
  worker: number;
  /** Calls this process starts per second, on a fixed schedule whatever the replies do. */
  ratePerS: number;
  /** Users (an agent client on one node, a device on the other), taken in turn. */
  users: number;
  warmupMs: number;
  durationMs: number;
  tag: string;
}

export interface OpenLoopResult {
  /** Calls scheduled inside the measured window (each one checked). */
  scheduled: number;
  /** Of those, calls that resumed with their answer. */
  completed: number;
  /** Calls that left more than 5 ms after their scheduled time (this process fell behind). */
  lateSends: number;
  /** Device's answer emitted → the call's result, µs histogram. */
  resume: string;
  /** Scheduled send time → the call's result (the whole cycle, queueing included). */
  cycle: string;
  faults: Record<string, number>;
  samples: string[];
}

/**
 * Full cycles at a fixed offered rate (open loop): call `k` is due at `start + k / rate` and is sent
 * then even if earlier calls are still waiting, so a node that falls behind shows as queueing in the
 * latencies (a closed loop would just slow down). The call goes to one node, the device on the other
 * answers at once; answer→resume is timed in this process (device and client live here).
 */
export async function openLoopLoad(p: OpenLoopParams, ctx: TaskContext): Promise<OpenLoopResult> {
  const faults = new Faults();
  const clients: Client[] = [];
  const devices: BenchDevice[] = [];
  /** question → when its device sent the answer (undefined until then). */
  const answeredAt = new Map<string, number>();
  const node = (i: number) => p.nodeUrls[i % p.nodeUrls.length] as string;
  await pool(p.users, 25, async (s) => {
    const user = `${p.tag}-w${p.worker}-u${s}`;
    clients[s] = await agentClient(node(s + p.worker), await token(p.secret, user, 'agent'));
    devices[s] = await openDevice(node(s + p.worker + 1), await token(p.secret, user, 'device'), 'bench', {
      onNew: (inquiry) => {
        if (!answeredAt.has(inquiry.question) || answeredAt.get(inquiry.question) !== 0) return;
        answeredAt.set(inquiry.question, now());
        (devices[s] as BenchDevice)
          .answer(inquiry.inquiryId, `a:${inquiry.question}`)
          .then(
            (ack) => ack.ok || faults.add('answer_rejected', `${inquiry.question}: ${JSON.stringify(ack)}`),
          )
          .catch((error: unknown) => faults.add('answer_failed', `${inquiry.question}: ${error}`));
      },
    });
  });
  ctx.emit('ready');
  await ctx.signal('go');

  const resume = newHist();
  const cycle = newHist();
  const start = now();
  const measureFrom = start + p.warmupMs;
  const measureTo = measureFrom + p.durationMs;
  const intervalMs = 1000 / p.ratePerS;
  const calls: Promise<void>[] = [];
  let scheduled = 0;
  let completed = 0;
  let lateSends = 0;
  for (let k = 0; ; k++) {
    const due = start + k * intervalMs;
    if (due >= measureTo) break;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    const measured = due >= measureFrom;
    if (measured) {
      scheduled++;
      if (now() - due > 5) lateSends++;
    }
    const question = `${p.tag} w${p.worker} n${k}`;
    answeredAt.set(question, 0);
    const client = clients[k % p.users] as Client;
    calls.push(
      sendInquiry(client, { question }, { timeoutMs: 120_000 }).then(
        (result) => {
          const t = now();
          if (result.status !== 'answered' || result.answer !== `a:${question}`)
            return faults.add('wrong_answer', `${question}: ${JSON.stringify(result)}`);
          if (!measured) return;
          completed++;
          recordMs(cycle, t - due);
          recordMs(resume, t - (answeredAt.get(question) as number));
        },
        (error: unknown) => faults.add('call_failed', `${question}: ${error}`),
      ),
    );
  }
  await within(Promise.all(calls), 180_000, 'open-loop calls');
  await Promise.all(devices.map((device) => device.settled()));
  for (const device of devices) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return {
    scheduled,
    completed,
    lateSends,
    resume: encodeHist(resume),
    cycle: encodeHist(cycle),
    faults: faults.counts,
    samples: faults.samples,
  };
}
