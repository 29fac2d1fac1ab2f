import { clearLine, createInterface, cursorTo } from 'node:readline';
import type { DeviceClient, DeviceClientOptions } from '@hitl/client';
import { onLine } from './input.js';
import {
  type Effect,
  initialSession,
  onAck,
  onResolved,
  onSnapshot,
  promptText,
  type SessionState,
  type Update,
} from './session.js';

/** Where the terminal device reads keys and writes text. */
export interface TerminalIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A real terminal: line editing, a live countdown in the prompt, Ctrl-C as a key. */
  isTTY: boolean;
}

export interface TerminalDeviceDeps {
  createClient(options: DeviceClientOptions): DeviceClient;
  now(): number;
  /** Where SIGINT / SIGTERM arrive when they are not keys (usually `process`). */
  signals: NodeJS.EventEmitter;
}

export interface TerminalDeviceOptions {
  url: string;
  token: string;
  deviceName: string;
}

/**
 * `hitl answer`: a device in a terminal. Everything it decides lives in the pure session (`session.ts`,
 * `input.ts`); this edge only wires the device client and readline to it. Resolves with the exit code:
 * 0 after `/quit` or end of input, 130 after Ctrl-C, 2 when the server refuses the token.
 */
export function runTerminalDevice(
  options: TerminalDeviceOptions,
  io: TerminalIo,
  deps: TerminalDeviceDeps,
): Promise<number> {
  const { output } = io;
  const device = deps.createClient({ ...options, autoConnect: false });
  const rl = createInterface({ input: io.input, output, terminal: io.isTTY, prompt: '> ' });
  let state: SessionState = initialSession;
  let quitting = false;
  // Typed lines wait until the first sync and while an answer is on its way, so input that arrives
  // early (a fast typist, or lines piped in) lands on the question it was meant for.
  const typed: string[] = [];
  let synced = false;
  let inputEnded = false;
  let draining = false;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const refreshPrompt = () => {
    if (quitting || !io.isTTY) return;
    rl.setPrompt(promptText(state, deps.now()));
    rl.prompt(true);
  };
  const print = (lines: string[]) => {
    if (lines.length === 0) return;
    if (io.isTTY) {
      cursorTo(output, 0);
      clearLine(output, 0);
    }
    output.write(lines.map((line) => `${line}\n`).join(''));
  };
  const apply = (update: Update) => {
    if (quitting) return;
    state = update.state;
    print(update.print);
    for (const effect of update.effects) run(effect);
    drain();
    refreshPrompt();
  };
  const drain = () => {
    if (draining) return;
    draining = true;
    while (!quitting && synced && !state.sending && typed.length > 0) {
      apply(onLine(state, typed.shift() ?? '', deps.now()));
    }
    draining = false;
    // End of input (Ctrl-D, or the end of piped lines) once everything typed was handled.
    if (inputEnded && synced && !state.sending && typed.length === 0) quit(0);
  };
  const run = (effect: Effect) => {
    if (effect.type === 'quit') return quit(effect.code);
    const { inquiryId } = effect;
    const sent =
      effect.type === 'answer'
        ? device.answer(inquiryId, effect.response, effect.extras)
        : device.refuse(inquiryId, effect.reason);
    void sent.then((ack) => apply(onAck(state, inquiryId, ack, deps.now())));
  };
  // A live countdown in the prompt; readline redraws the typed text with it.
  const tick = setInterval(() => {
    if (state.draft) refreshPrompt();
  }, 1000);
  const onSigint = () => quit(130);
  const onSigterm = () => quit(143);
  const quit = (code: number) => {
    if (quitting) return;
    quitting = true;
    clearInterval(tick);
    deps.signals.off('SIGINT', onSigint);
    deps.signals.off('SIGTERM', onSigterm);
    device.close();
    if (io.isTTY) output.write('\n');
    rl.close();
    finish(code);
  };

  rl.on('line', (line) => {
    typed.push(line);
    drain();
  });
  rl.on('SIGINT', onSigint);
  rl.on('close', () => {
    inputEnded = true;
    drain();
  });
  deps.signals.on('SIGINT', onSigint);
  deps.signals.on('SIGTERM', onSigterm);
  device.subscribe(() => {
    const snapshot = device.getSnapshot();
    synced ||= snapshot.synced;
    apply(onSnapshot(state, snapshot, deps.now()));
  });
  device.on('resolved', (notice) => apply(onResolved(state, notice, deps.now())));

  print([`${options.deviceName}: connecting to ${options.url} ... (/help for commands, Ctrl-C to quit)`]);
  refreshPrompt();
  device.connect();
  return finished;
}
