import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type {
  DeviceAck,
  DeviceInquiry,
  InquiryResolvedEvent,
  InquiryResponse,
  InquirySyncEvent,
} from '@hitl/protocol';
import { io, type Socket } from 'socket.io-client';
import { runCli } from '../src/cli/main.js';
import type { ConversationResult } from '../src/transcript/events.js';

/** A real inquiry node on a loopback port, with its own state folder (and so its own secret). */
export interface LiveNode {
  node: RunningNode;
  stateDir: string;
  /** The environment the demo needs to reach this node and sign its own token from the state folder. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLiveNode(env: Record<string, string> = {}): Promise<LiveNode> {
  const stateDir = await mkdtemp(join(tmpdir(), 'hitl-shop-'));
  const config = loadConfig({
    PORT: '0',
    HITL_STATE_DIR: stateDir,
    LOG_LEVEL: 'silent',
    HITL_SWEEP_MS: '100',
    ...env,
  });
  const node = await startNode(config);
  return {
    node,
    stateDir,
    env: { HITL_URL: node.url, HITL_STATE_DIR: stateDir },
    async close() {
      await node.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** What a scripted device does with one question. */
export type Move =
  /** Answers, after `afterMs` when given (a person who opens the notification later). */
  | { answer: InquiryResponse; afterMs?: number }
  | { refuse: true }
  /** Waits for its own countdown (tier 1) to run out, then reports it, as a real device does. */
  | { reportTimeout: true }
  | { ignore: true };

export interface ScriptedDevice {
  seen: DeviceInquiry[];
  resolved: InquiryResolvedEvent[];
  acks: DeviceAck[];
  /** Disconnects once every move it started has its ack (an ack may come just after the agent's result). */
  close(): Promise<void>;
}

/**
 * A real socket.io-client device for `user` that answers each question it is pushed the way `script`
 * says, through the same acked events a phone or browser sends.
 */
export async function scriptedDevice(
  live: LiveNode,
  user: string,
  script: (inquiry: DeviceInquiry) => Move,
): Promise<ScriptedDevice> {
  const token = await live.node.tokens.sign({ sub: user, role: 'device', name: 'scripted phone' });
  const socket: Socket = io(live.node.url, {
    auth: { token, deviceName: 'scripted phone' },
    transports: ['websocket'],
    reconnection: false,
  });
  const moves: Promise<void>[] = [];
  const device: ScriptedDevice = {
    seen: [],
    resolved: [],
    acks: [],
    close: async () => {
      await Promise.allSettled(moves);
      socket.disconnect();
    },
  };
  const play = async (inquiry: DeviceInquiry) => {
    if (device.seen.some((s) => s.inquiryId === inquiry.inquiryId)) return;
    device.seen.push(inquiry);
    const move = script(inquiry);
    const ref = { inquiryId: inquiry.inquiryId };
    if ('answer' in move) {
      if (move.afterMs) await new Promise((resolve) => setTimeout(resolve, move.afterMs));
      device.acks.push(
        await socket.timeout(5000).emitWithAck('inquiry:answer', { ...ref, response: move.answer }),
      );
    } else if ('refuse' in move) {
      device.acks.push(await socket.timeout(5000).emitWithAck('inquiry:refuse', ref));
    } else if ('reportTimeout' in move) {
      const wait = inquiry.deadlines.deviceAt - inquiry.serverTime + 50;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
      device.acks.push(await socket.timeout(5000).emitWithAck('inquiry:timeout', ref));
    }
  };
  socket.on('inquiry:new', (inquiry: DeviceInquiry) => void moves.push(play(inquiry)));
  socket.on('inquiry:sync', (sync: InquirySyncEvent) => {
    for (const inquiry of sync.inquiries) moves.push(play(inquiry));
  });
  socket.on('inquiry:resolved', (event: InquiryResolvedEvent) => device.resolved.push(event));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return device;
}

export interface DemoRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The `--json` output, parsed (only when `--json` was passed). */
  json?: ConversationResult;
}

/** Runs the demo's command line in this process, capturing what it prints. */
export async function runDemo(
  argv: string[],
  env: Record<string, string>,
  options: { signal?: AbortSignal; onStdout?: (text: string) => void } = {},
): Promise<DemoRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    options.onStdout?.(out);
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await runCli(argv, {
    env,
    stdout,
    stderr,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  await new Promise((resolve) => setImmediate(resolve));
  return {
    code,
    stdout: out,
    stderr: err,
    ...(argv.includes('--json') && out.trim() ? { json: JSON.parse(out) as ConversationResult } : {}),
  };
}
