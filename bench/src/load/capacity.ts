import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { encodeHist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { deferred, Faults, now, pool, until, within } from './util.js';

export interface CapacityParams {
  secret: string;
  url: string;
  tag: string;
  users: number;
  /** Calls this process parks on the node. */
  held: number;
  /** Calls being set up at once while parking. */
  ramp: number;
  /** Skip the runner's go-ahead and answer at once (warm-up). */
  answerAtOnce?: boolean;
  /** What each held call is (default `send`); see {@link HeldPath}. */
  path?: HeldPath;
}

/**
 * The held call: `send` a suspended `send_inquiry`; `get` a `get_inquiry` wait (`waitMs`) on an
 * inquiry asked as a task; `task` a `tasks/result` wait on a task's inquiry (issue 21: the new paths
 * cost no more per held call than `send_inquiry`). Each sends a progress token.
 */
export type HeldPath = 'send' | 'get' | 'task';

/** Long enough for any run; the node bounds a `get_inquiry` wait by its own limit. */
const HOLD_MS = 3_600_000;

export interface CapacityResult {
  parked: number;
  parkMs: number;
  answered: number;
  /** Answer emitted → that call's result, with every call released at once. */
  hist: string;
  releaseMs: number;
  faults: Record<string, number>;
  samples: string[];
}

interface Held {
  n: number;
  question: string;
  inquiryId?: string;
  done: Promise<{ at: number; result?: InquiryResult }>;
}

/**
 * Parks `held` suspended send_inquiry calls (each sends a progress token, as a long-waiting client
 * should, so the node heartbeats it), reports `parked`, waits for `answer`, then answers every one
 * through the users' devices and checks that each call got its own answer.
 */
export async function capacityLoad(p: CapacityParams, ctx: TaskContext): Promise<CapacityResult> {
  const faults = new Faults();
  const clients: Client[] = [];
  const devices: BenchDevice[] = [];
  const byQuestion = new Map<string, Held>();
  await pool(p.users, 10, async (u) => {
    const user = `${p.tag}-u${u}`;
    clients[u] = await agentClient(p.url, await token(p.secret, user, 'agent'));
    devices[u] = await openDevice(p.url, await token(p.secret, user, 'device'), 'bench', {
      onNew: (inquiry) => {
        const call = byQuestion.get(inquiry.question);
        if (call) call.inquiryId = inquiry.inquiryId;
      },
    });
  });
  const calls: Held[] = [];
  const parkStart = now();
  await pool(p.held, p.ramp, async (n) => {
    const question = `${p.tag} q${n}`;
    const progressed = deferred<void>();
    const client = clients[n % p.users] as Client;
    const inquiryIdOf = () => byQuestion.get(question)?.inquiryId;
    const done = hold(p.path ?? 'send', client, question, inquiryIdOf, () => progressed.resolve()).then(
      (result) => ({ at: now(), result }),
      (error: unknown) => {
        faults.add('call_failed', `${question}: ${error}`);
        progressed.resolve();
        return { at: now() };
      },
    );
    const call: Held = { n, question, done };
    byQuestion.set(question, call);
    calls.push(call);
    await within(progressed.promise, 600_000, `first progress of ${question}`);
  });
  const parkMs = now() - parkStart;
  await until(
    () => calls.every((c) => c.inquiryId),
    60_000,
    () => `pushes ${calls.filter((c) => c.inquiryId).length} of ${calls.length}`,
  );
  ctx.emit('parked', { parked: calls.length, parkMs });
  if (!p.answerAtOnce) await ctx.signal('answer');

  const hist = newHist();
  const releaseStart = now();
  await pool(calls.length, 200, async (i) => {
    const call = calls[i] as Held;
    const t0 = now();
    const ack = await (devices[call.n % p.users] as BenchDevice)
      .answer(call.inquiryId as string, `a${call.n}`)
      .catch(() => undefined);
    if (!ack?.ok) faults.add('answer_rejected', `${call.question}: ${JSON.stringify(ack)}`);
    // A call that does not resume is a fault of its own (with the ack it had), not the end of the run.
    const done = await within(call.done, 120_000, `result of ${call.question}`).catch(() => undefined);
    if (!done) return faults.add('no_result', `${call.question}: ack ${JSON.stringify(ack)}`);
    const { at, result } = done;
    recordMs(hist, at - t0);
    if (!result) return;
    if (result.status !== 'answered' || result.answer !== `a${call.n}` || result.inquiryId !== call.inquiryId)
      faults.add('wrong_answer', `${call.question}: ${JSON.stringify(result)}`);
  });
  const releaseMs = now() - releaseStart;
  for (const device of devices) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return {
    parked: calls.length,
    parkMs,
    answered: hist.totalCount,
    hist: encodeHist(hist),
    releaseMs,
    faults: faults.counts,
    samples: faults.samples,
  };
}

/** One held call of the path, resolved with the structured result it resumes with. */
async function hold(
  path: HeldPath,
  client: Client,
  question: string,
  inquiryIdOf: () => string | undefined,
  onprogress: () => void,
): Promise<InquiryResult> {
  const progress = { onprogress, resetTimeoutOnProgress: true, timeout: HOLD_MS, maxTotalTimeout: HOLD_MS };
  if (path === 'send') return sendInquiry(client, { question }, { onprogress, timeoutMs: HOLD_MS });
  const { task } = await client.request(
    { method: 'tools/call', params: { name: 'send_inquiry', arguments: { question } } },
    CreateTaskResultSchema,
    { task: { ttl: HOLD_MS } },
  );
  if (path === 'task') {
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, progress);
    return structured(result.structuredContent);
  }
  // The inquiry id comes with its push to the user's device.
  await until(
    () => inquiryIdOf() !== undefined,
    60_000,
    () => `push of ${question}`,
  );
  const result = await client.callTool(
    { name: 'get_inquiry', arguments: { inquiryId: inquiryIdOf(), waitMs: HOLD_MS } },
    undefined,
    progress,
  );
  return structured(result.structuredContent);
}

function structured(content: unknown): InquiryResult {
  if (!content) throw new Error('the result has no structuredContent');
  return content as InquiryResult;
}
