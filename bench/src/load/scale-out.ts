import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { Faults, pool, sleep, until, within } from './util.js';

export interface ScaleOutParams {
  secret: string;
  nodeUrls: string[];
  /** User u's agent and its one device both use node u % nodeUrls.length. */
  users: number;
  /** Cycles started per second, whatever the nodes' latency (open loop). */
  ratePerSec: number;
  durationMs: number;
  tag: string;
}

export interface ScaleOutResult {
  /** Full cycles per node (index as in nodeUrls): call → device → answer → call resumed. */
  cyclesPerNode: number[];
  faults: Record<string, number>;
  samples: string[];
}

/**
 * A fixed offered load of full cycles, each user's agent and device on one node: whatever a node
 * hears from Redis beyond its own users' events is the cost of the cluster's size.
 */
export async function scaleOutLoad(p: ScaleOutParams, ctx: TaskContext): Promise<ScaleOutResult> {
  const faults = new Faults();
  const clients: Client[] = [];
  const devices: BenchDevice[] = [];
  const asked = new Set<string>();
  const resolved = new Map<string, number>();
  const nodeOf = (u: number) => u % p.nodeUrls.length;
  await pool(p.users, 25, async (u) => {
    const user = `${p.tag}-u${u}`;
    const url = p.nodeUrls[nodeOf(u)] as string;
    clients[u] = await agentClient(url, await token(p.secret, user, 'agent'));
    devices[u] = await openDevice(url, await token(p.secret, user, 'device'), 'bench', {
      onNew: (inquiry) => {
        if (!asked.has(inquiry.question)) return;
        (devices[u] as BenchDevice)
          .answer(inquiry.inquiryId, `a:${inquiry.question}`)
          .then((ack) => ack.ok || faults.add('answer_rejected', JSON.stringify(ack)))
          .catch((error: unknown) => faults.add('answer_failed', String(error)));
      },
      onResolved: (event) => {
        const seen = resolved.get(event.inquiryId) ?? 0;
        resolved.set(event.inquiryId, seen + 1);
        if (seen > 0) faults.add('duplicate_resolved', event.inquiryId);
      },
    });
  });
  ctx.emit('ready');
  await ctx.signal('go');

  const cyclesPerNode = p.nodeUrls.map(() => 0);
  const busy = new Set<number>();
  const ids = new Set<string>();
  const calls: Promise<void>[] = [];
  const cycle = async (u: number, question: string) => {
    busy.add(u);
    asked.add(question);
    try {
      const result = await sendInquiry(clients[u] as Client, { question }, { timeoutMs: 60_000 });
      if (result.status !== 'answered' || result.answer !== `a:${question}`)
        faults.add('wrong_answer', `${question}: ${JSON.stringify(result)}`);
      else cyclesPerNode[nodeOf(u)] = (cyclesPerNode[nodeOf(u)] ?? 0) + 1;
      ids.add(result.inquiryId as string);
    } catch (error) {
      faults.add('call_failed', `${question}: ${error}`);
    }
    asked.delete(question);
    busy.delete(u);
  };
  const started = Date.now();
  let next = 0;
  for (let n = 0; Date.now() - started < p.durationMs; n++) {
    // The next user without a call in flight (a slow node does not slow the others' offered load).
    let u = next;
    for (let tries = 0; busy.has(u) && tries < p.users; tries++) u = (u + 1) % p.users;
    next = (u + 1) % p.users;
    if (busy.has(u)) faults.add('all_users_busy', `at cycle ${n}`);
    else calls.push(cycle(u, `${p.tag} u${u} n${n}`));
    const due = started + ((n + 1) * 1000) / p.ratePerSec;
    await sleep(Math.max(0, due - Date.now()));
  }
  await within(Promise.all(calls), 120_000, 'scale-out calls');
  await until(() => [...ids].every((id) => resolved.has(id)), 20_000, 'resolved events').catch(() =>
    faults.add('resolved_missing', `${[...ids].filter((id) => !resolved.has(id)).length} inquiries`),
  );
  await Promise.all(devices.map((device) => device.settled()));
  for (const device of devices) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return { cyclesPerNode, faults: faults.counts, samples: faults.samples };
}
