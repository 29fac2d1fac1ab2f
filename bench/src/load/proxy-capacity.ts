import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { Faults, now, pool, until, within } from './util.js';

export interface ProxyCapacityParams {
  secret: string;
  /** The proxy the calls go to. */
  proxyUrl: string;
  /** The node the users' devices connect to (where the proxy asks them). */
  nodeUrl: string;
  tag: string;
  users: number;
  /** Calls this process holds at the proxy. */
  held: number;
  /** Calls being set up at once while parking. */
  ramp: number;
  /** Skip the runner's go-ahead and approve at once (warm-up). */
  answerAtOnce?: boolean;
}

export interface ProxyCapacityResult {
  parked: number;
  answered: number;
  releaseMs: number;
  faults: Record<string, number>;
  samples: string[];
}

/** Long enough for any run. */
const HOLD_MS = 3_600_000;

/**
 * Holds `held` destructive `tools/call`s at the approval proxy (each put to the user's devices as an
 * approval), reports `parked` once every approval has reached a device, waits for `answer`, approves
 * each, and checks that each call then ran on the backend with its own arguments.
 */
export async function proxyCapacityLoad(
  p: ProxyCapacityParams,
  ctx: TaskContext,
): Promise<ProxyCapacityResult> {
  const faults = new Faults();
  const clients: Client[] = [];
  const devices: BenchDevice[] = [];
  /** Approvals that reached a device, by user. */
  const asked: string[][] = Array.from({ length: p.users }, () => []);
  await pool(p.users, 10, async (u) => {
    const user = `${p.tag}-u${u}`;
    clients[u] = await agentClient(p.proxyUrl, await token(p.secret, user, 'agent'));
    devices[u] = await openDevice(p.nodeUrl, await token(p.secret, user, 'device'), 'bench', {
      onNew: (inquiry) => void (asked[u] as string[]).push(inquiry.inquiryId),
    });
  });
  const calls: Promise<boolean>[] = [];
  let failed = 0;
  await pool(p.held, p.ramp, async (n) => {
    const client = clients[n % p.users] as Client;
    calls.push(
      client
        .callTool({ name: 'touch', arguments: { n } }, undefined, {
          timeout: HOLD_MS,
          maxTotalTimeout: HOLD_MS,
        })
        .then(
          (result) => {
            const text = (result.content as { type: string; text?: string }[])[0]?.text;
            if (result.isError || text !== `touch {"n":${n}}`)
              faults.add('wrong_result', `touch ${n}: ${JSON.stringify(result)}`);
            return true;
          },
          (error: unknown) => {
            failed++;
            faults.add('call_failed', `touch ${n}: ${error}`);
            return false;
          },
        ),
    );
  });
  const reached = () => asked.reduce((a, ids) => a + ids.length, 0);
  // A call that failed (a fault) never reaches a device.
  await until(
    () => reached() + failed >= p.held,
    600_000,
    () => `approvals on devices ${reached()} of ${p.held} (${failed} failed)`,
  );
  ctx.emit('parked', { parked: reached() });
  if (!p.answerAtOnce) await ctx.signal('answer');
  const releaseStart = now();
  const all = asked.flatMap((ids, u) => ids.map((id) => [u, id] as const));
  await pool(all.length, 200, async (i) => {
    const [u, id] = all[i] as readonly [number, string];
    const ack = await (devices[u] as BenchDevice).answer(id, 'approve').catch(() => undefined);
    if (!ack?.ok) faults.add('answer_rejected', `${id}: ${JSON.stringify(ack)}`);
  });
  const done = await within(Promise.all(calls), 300_000, 'approved calls').catch(() => []);
  const releaseMs = now() - releaseStart;
  for (const device of devices) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return {
    parked: all.length,
    answered: done.filter(Boolean).length,
    releaseMs,
    faults: faults.counts,
    samples: faults.samples,
  };
}
