import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOT_TOKEN, SIGNING_SECRET } from '@hitl/inquiry/testing';
import { startRedisServer } from '@hitl/store/testing';
import { mergeHists, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET, nodeStats } from '../env/nodes.js';
import { startProfiledNodes } from '../env/probe-handle.js';
import { commandStats } from '../env/redis-stats.js';
import { startWorker } from '../env/workers.js';
import type { AnswerPath } from '../load/path-clients.js';
import {
  ANSWER_PATHS,
  type BlockMark,
  type PathsParams,
  type PathsResult,
  pathUser,
  slackMember,
} from '../load/paths.js';
import { faultFields, param, type ScenarioContext } from './context.js';

/** Each round-3 answer path costs at most this times the plain device answer, CPU and p50 alike. */
const GOAL_RATIO = 1.2;

export type PathsStore = 'redis' | 'memory' | 'sqlite';

/**
 * The answer paths against each other on one node and one store: a socket.io device's answer (the
 * floor), the agent's own chat (an MCP elicitation on the held call), and Slack (a signed interaction
 * POST; the node posts to and updates a local fake of Slack's Web API). Blocks of each alternate;
 * per path: the node's CPU time per full cycle (`process.cpuUsage` of the node, read around each
 * block) and answer → resumed call, with ratios to the device path of the same run.
 * `--set cpuprof=1` writes CPU profiles of the node over the timed rounds.
 */
export function paths(store: PathsStore) {
  return async (ctx: ScenarioContext): Promise<Fields> => {
    const params: PathsParams = {
      secret: BENCH_SECRET,
      users: param(ctx, 'users', { quick: 2, full: 4 }),
      block: param(ctx, 'block', { quick: 20, full: 150 }),
      rounds: param(ctx, 'rounds', { quick: 2, full: 5 }),
    };
    const redis = store === 'redis' ? await startRedisServer() : undefined;
    if (redis) ctx.cleanup.add(() => redis.stop());
    const dir = mkdtempSync(join(tmpdir(), 'hitl-bench-paths-'));
    ctx.cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
    const directoryFile = join(dir, 'directory.json');
    writeFileSync(directoryFile, JSON.stringify(directoryOf(params.users)));

    const load = startWorker<PathsResult>('paths', params);
    ctx.cleanup.add(() => load.kill());
    const { apiUrl } = await load.next<{ apiUrl: string }>('fake-slack');
    const profiled = await startProfiledNodes(1, redis?.url, ctx.overrides.cpuprof === 1, ctx.cleanup, {
      ...(redis ? {} : { HITL_STORE: store }),
      HITL_DIRECTORY_FILE: directoryFile,
      HITL_SLACK_BOT_TOKEN: BOT_TOKEN,
      HITL_SLACK_SIGNING_SECRET: SIGNING_SECRET,
      HITL_SLACK_API_URL: apiUrl,
    });
    const node = profiled.nodes[0];
    if (!node) throw new Error('no node started');
    ctx.log(
      `${store}: ${params.rounds} rounds of ${params.block} cycles per path (${ANSWER_PATHS.join(', ')})`,
    );
    // Around each block the load generator waits while the node's CPU time (and Redis's command
    // counts) are read; the timed blocks add up per path.
    const spent = Object.fromEntries(ANSWER_PATHS.map((path) => [path, { cpuMs: 0, cycles: 0, redis: 0 }]));
    const marks = (async () => {
      let start = { cpuMs: 0, redis: {} as Record<string, number> };
      for (;;) {
        const m = await load.next<BlockMark>('mark').catch(() => undefined);
        if (!m) return;
        const now = {
          cpuMs: (await nodeStats(node)).cpuMs,
          redis: redis ? (await commandStats(redis.url)).calls : {},
        };
        if (m.edge === 'end' && m.timed) {
          const into = spent[m.path] as { cpuMs: number; cycles: number; redis: number };
          into.cpuMs += now.cpuMs - start.cpuMs;
          into.cycles += params.block;
          into.redis += nodeCommands(now.redis) - nodeCommands(start.redis);
        }
        start = now;
        load.signal('marked');
      }
    })();
    load.signal('node', { url: node.url });
    await load.next('progress');
    await profiled.start();
    const result = await load.result;
    await marks;
    const profileDir = await profiled.stop();
    if (profileDir) ctx.log(`CPU profiles of the node over the timed rounds: ${profileDir}`);

    const fields: Fields = { store };
    const per = {} as Record<AnswerPath, { cpu: number; p50: number }>;
    for (const path of ANSWER_PATHS) {
      const {
        cpuMs,
        cycles,
        redis: commands,
      } = spent[path] as { cpuMs: number; cycles: number; redis: number };
      const latency = summarize(mergeHists([result.paths[path].hist]));
      per[path] = { cpu: cpuMs / cycles, p50: latency.p50_ms };
      fields[`${path}_cycles`] = cycles;
      fields[`${path}_cpu_per_cycle_ms`] = per[path].cpu;
      if (redis) fields[`${path}_redis_per_cycle`] = commands / cycles;
      fields[`${path}_p50_ms`] = latency.p50_ms;
      fields[`${path}_p99_ms`] = latency.p99_ms;
    }
    let met = true;
    for (const path of ANSWER_PATHS.filter((p) => p !== 'device')) {
      const cpuRatio = per[path].cpu / per.device.cpu;
      const p50Ratio = per[path].p50 / per.device.p50;
      fields[`${path}_cpu_ratio`] = cpuRatio;
      fields[`${path}_p50_ratio`] = p50Ratio;
      met &&= cpuRatio <= GOAL_RATIO && p50Ratio <= GOAL_RATIO;
    }
    const faults = faultFields(result.faults);
    if (faults.faults !== 0) ctx.log(`faults: ${result.samples.join('; ')}`);
    const expected = params.block * params.rounds;
    return {
      ...fields,
      ...faults,
      ok: faults.faults === 0 && ANSWER_PATHS.every((path) => spent[path]?.cycles === expected),
      goal: met ? 'met' : 'missed',
    };
  };
}

/** Commands Redis ran (scripts' inner calls included), less what reading the counts costs. */
function nodeCommands(counts: Record<string, number>): number {
  let total = 0;
  for (const [command, calls] of Object.entries(counts)) if (!READING.has(command)) total += calls;
  return total;
}
const READING = new Set(['info', 'client|setname', 'client|setinfo', 'select', 'hello']);

/** Every user of every path in the directory; only the Slack path's users have Slack DMs. */
function directoryOf(users: number) {
  const entries: Record<string, { name: string; slack?: string; notify?: string[] }> = {};
  for (let i = 0; i < users; i++) {
    entries[pathUser('device', i)] = { name: `Device ${i}` };
    entries[pathUser('chat', i)] = { name: `Chat ${i}` };
    entries[pathUser('slack', i)] = { name: `Slack ${i}`, slack: slackMember(i), notify: ['slack'] };
  }
  return { users: entries };
}
