import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeHist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { Faults, now, pool, until, within } from './util.js';

export interface ResumeParams {
  secret: string;
  /** Node the MCP calls go to. */
  callUrl: string;
  /** Node the devices answer on (the same URL for the same-node scenario). */
  answerUrl: string;
  users: number;
  /** Calls kept open (suspended) the whole time. */
  open: number;
  samples: number;
  warmup: number;
  tag: string;
}

export interface ResumeResult {
  hist: string;
  /** Answer emitted → the device's ack (the answer is stored and has won). */
  ackHist: string;
  measured: number;
  completed: number;
  faults: Record<string, number>;
  samples: string[];
}

interface Call {
  n: number;
  question: string;
  inquiryId?: string;
  /** When the result arrived (ms, this process's clock), with the result. */
  done: Promise<{ at: number; result?: InquiryResult; error?: string }>;
}

/**
 * Keeps `open` send_inquiry calls suspended; then, one at a time, a device answers the oldest and
 * the time from the answer's emit to the SDK client's result is recorded. Each answered call is
 * replaced at once, so the open count stays put.
 */
export async function resumeLoad(p: ResumeParams, ctx: TaskContext): Promise<ResumeResult> {
  const faults = new Faults();
  const byQuestion = new Map<string, Call>();
  const clients: Client[] = [];
  const devices: BenchDevice[] = [];
  const users = Array.from({ length: p.users }, (_, i) => `${p.tag}-u${i}`);
  await pool(users.length, 20, async (i) => {
    const user = users[i] as string;
    clients[i] = await agentClient(p.callUrl, await token(p.secret, user, 'agent'));
    devices[i] = await openDevice(p.answerUrl, await token(p.secret, user, 'device'), 'bench', {
      onNew: (inquiry) => {
        const call = byQuestion.get(inquiry.question);
        if (!call) return;
        if (call.inquiryId) faults.add('duplicate_new', inquiry.inquiryId);
        call.inquiryId = inquiry.inquiryId;
      },
    });
  });
  let completed = 0;
  const open = (n: number): Call => {
    const question = `${p.tag} q${n}`;
    const done = sendInquiry(clients[n % p.users] as Client, { question }).then(
      (result) => ({ at: now(), result }),
      (error: unknown) => {
        faults.add('call_failed', `${question}: ${error}`);
        return { at: now(), error: String(error) };
      },
    );
    const call: Call = { n, question, done };
    byQuestion.set(question, call);
    return call;
  };
  const check = async (call: Call, ackOk: Promise<boolean>) => {
    const { result, error } = await call.done;
    byQuestion.delete(call.question);
    completed++;
    if (error || !result) return;
    if (result.status !== 'answered' || result.answer !== `a${call.n}`)
      faults.add('wrong_answer', `${call.question}: ${JSON.stringify(result)}`);
    if (result.inquiryId !== call.inquiryId) faults.add('wrong_inquiry', call.question);
    if (!(await ackOk)) faults.add('answer_rejected', call.question);
  };
  const ackHist = newHist();
  const answer = (call: Call, timed = false) => {
    const t0 = now();
    return (devices[call.n % p.users] as BenchDevice)
      .answer(call.inquiryId as string, `a${call.n}`)
      .then((ack) => {
        if (timed) recordMs(ackHist, now() - t0);
        return ack.ok;
      })
      .catch(() => false);
  };

  const queue: Call[] = [];
  let next = 0;
  while (next < p.open) queue.push(open(next++));
  await until(
    () => queue.every((c) => c.inquiryId),
    180_000,
    () =>
      `pushes: ${queue.filter((c) => c.inquiryId).length} of ${queue.length}; ${faults.samples.join('; ')}`,
  );
  ctx.emit('parked', { open: queue.length });

  const hist = newHist();
  for (let i = 0; i < p.warmup + p.samples; i++) {
    const call = queue.shift() as Call;
    await until(() => call.inquiryId !== undefined, 10_000, `push of ${call.question}`, 1);
    const t0 = now();
    const ack = answer(call, i >= p.warmup);
    const { at } = await within(call.done, 10_000, `result of ${call.question}`);
    if (i >= p.warmup) recordMs(hist, at - t0);
    queue.push(open(next++));
    await check(call, ack);
  }
  // Drain: every call still open is answered and checked too.
  await until(() => queue.every((c) => c.inquiryId), 30_000, 'pushes of the last calls');
  await within(Promise.all(queue.map((call) => check(call, answer(call)))), 60_000, 'the last calls');
  for (const device of devices) device.close();
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  return {
    hist: encodeHist(hist),
    ackHist: encodeHist(ackHist),
    measured: hist.totalCount,
    completed,
    faults: faults.counts,
    samples: faults.samples,
  };
}
