import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeHist, type Hist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { agentClient, sendInquiry, token } from './agents.js';
import { type BenchDevice, openDevice } from './device.js';
import { type AnswerPath, chatAgent, openSlackFake, type SlackSide, slackClick } from './path-clients.js';
import { deferred, Faults, now, pool, within } from './util.js';

export const ANSWER_PATHS = ['device', 'chat', 'slack'] as const;

export interface PathsParams {
  secret: string;
  /** Users per path (each path has its own users, so no question reaches two paths). */
  users: number;
  /** Cycles per block; blocks of the paths alternate, the node's CPU is read around each. */
  block: number;
  /** Timed rounds (one block per path each), after one untimed warm-up round. */
  rounds: number;
}

/** Sent around each block: the runner reads the node's CPU time (and Redis's counts) at each edge. */
export interface BlockMark {
  path: AnswerPath;
  edge: 'start' | 'end';
  /** False in the warm-up round. */
  timed: boolean;
}

export interface PathsResult {
  /** Answer → resumed call per path, timed rounds only. */
  paths: Record<AnswerPath, { hist: string }>;
  faults: Record<string, number>;
  samples: string[];
}

/** The directory users of each path: `p<path initial><i>`; Slack users have member ids `U0PS<i>`. */
export const pathUser = (path: AnswerPath, i: number) => `p${path[0]}${i}`;
export const slackMember = (i: number) => `U0PS${i}`;

/** Who a path's answer must name in `resolvedBy.deviceName`. */
const DEVICE_NAME: Record<AnswerPath, string> = {
  device: 'bench',
  chat: 'hitl-bench-chat (chat)',
  slack: 'Slack',
};

/**
 * One full cycle at a time per path: `send_inquiry` (options yes / no) held by the official MCP SDK
 * client → the question reaches the path (a socket.io device's `inquiry:new`, an elicitation on the
 * call's own stream, a Slack DM posted to the local fake Web API) → answered there ("yes") → the
 * call's result. Times answer → result; the runner reads the node's CPU time around each block
 * ({@link BlockMark}).
 */
export async function pathsLoad(p: PathsParams, ctx: TaskContext): Promise<PathsResult> {
  const faults = new Faults();
  const slack: SlackSide = await openSlackFake();
  ctx.emit('fake-slack', { apiUrl: slack.fake.apiUrl });
  const { url } = await ctx.signal<{ url: string }>('node');
  const mark = async (m: BlockMark): Promise<void> => {
    ctx.emit('mark', m);
    await ctx.signal('marked');
  };

  /** Per question: when the question reached its path (an inquiry id), and when it was answered. */
  const asked = new Map<string, { inquiryId: ReturnType<typeof deferred<string>>; t0?: number }>();
  const agents: Record<AnswerPath, Client[]> = { device: [], chat: [], slack: [] };
  const devices: BenchDevice[] = [];
  await pool(p.users, 8, async (i) => {
    const deviceUser = pathUser('device', i);
    agents.device[i] = await agentClient(url, await token(p.secret, deviceUser, 'agent'));
    devices[i] = await openDevice(url, await token(p.secret, deviceUser, 'device'), 'bench', {
      onNew: (inquiry) => asked.get(inquiry.question)?.inquiryId.resolve(inquiry.inquiryId),
    });
    // One cycle is in flight: the elicitation is the one whose message holds the open question.
    agents.chat[i] = await chatAgent(url, await token(p.secret, pathUser('chat', i), 'agent'), (message) => {
      const entry = [...asked].find(([question]) => message.includes(question))?.[1];
      if (!entry) faults.add('unknown_elicitation', message);
      else entry.t0 = now();
      return 'yes';
    });
    agents.slack[i] = await agentClient(url, await token(p.secret, pathUser('slack', i), 'agent'));
  });

  const cycle = async (path: AnswerPath, n: number, hist: Hist | undefined) => {
    const i = n % p.users;
    const question = `paths ${path} q${n}`;
    const entry = { inquiryId: deferred<string>(), t0: undefined as number | undefined };
    asked.set(question, entry);
    type Outcome = { at: number; result?: InquiryResult; error?: unknown };
    const call = sendInquiry(agents[path][i] as Client, { question, options: ['yes', 'no'] }).then(
      (result): Outcome => ({ at: now(), result }),
      (error: unknown): Outcome => ({ at: now(), error }),
    );
    if (path === 'device') {
      const inquiryId = await within(entry.inquiryId.promise, 10_000, `push of ${question}`);
      entry.t0 = now();
      const ack = await (devices[i] as BenchDevice).answer(inquiryId, 'yes');
      if (!ack.ok) faults.add('answer_rejected', `${question}: ${JSON.stringify(ack)}`);
    } else if (path === 'slack') {
      const message = await within(slack.posted(question), 10_000, `Slack message of ${question}`);
      const request = slackClick(message, slackMember(i));
      entry.t0 = now();
      const response = await fetch(`${url}/slack/interactions`, request);
      const outcome = response.headers.get('hitl-slack-outcome');
      await response.arrayBuffer();
      if (response.status !== 200 || outcome !== 'answered')
        faults.add('slack_refused', `${question}: ${response.status} ${outcome}`);
    }
    const { at, result, error } = await within(call, 10_000, `result of ${question}`);
    asked.delete(question);
    if (!result) return faults.add('call_failed', `${question}: ${error}`);
    if (result.status !== 'answered' || result.answer !== 'yes')
      return faults.add('wrong_answer', `${question}: ${JSON.stringify(result)}`);
    const by = result.resolvedBy;
    if (by?.kind !== 'human' || by.deviceName !== DEVICE_NAME[path])
      faults.add('wrong_path', `${question}: resolved by ${JSON.stringify(by)}`);
    if (entry.t0 === undefined) return faults.add('not_timed', question);
    if (hist) recordMs(hist, at - entry.t0);
  };

  const hists = Object.fromEntries(ANSWER_PATHS.map((path) => [path, newHist()])) as Record<AnswerPath, Hist>;
  let n = 0;
  for (let round = 0; round <= p.rounds; round++) {
    // Round 0 warms up; each later round starts with the next path, so none always goes first.
    const order = ANSWER_PATHS.map((_, k) => ANSWER_PATHS[(k + round) % ANSWER_PATHS.length] as AnswerPath);
    for (const path of order) {
      const timed = round > 0;
      await mark({ path, edge: 'start', timed });
      for (let k = 0; k < p.block; k++) await cycle(path, n++, timed ? hists[path] : undefined);
      await mark({ path, edge: 'end', timed });
    }
    ctx.emit('progress', { round });
  }

  for (const device of devices) device.close();
  await Promise.all(
    ANSWER_PATHS.flatMap((path) => agents[path].map((c) => c.close().catch(() => undefined))),
  );
  await slack.fake.close();
  return {
    paths: Object.fromEntries(
      ANSWER_PATHS.map((path) => [path, { hist: encodeHist(hists[path]) }]),
    ) as PathsResult['paths'],
    faults: faults.counts,
    samples: faults.samples,
  };
}
