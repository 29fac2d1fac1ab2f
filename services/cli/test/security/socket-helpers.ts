import { io, type Socket } from 'socket.io-client';
import { rpcPost } from '../node-process.js';

/** What a raw socket.io client saw: every decoded packet, and how the handshake ended. */
export interface WatchedSocket {
  socket: Socket;
  /** Event packets as `[name, payload]`, whether or not the socket was ever admitted. */
  events: [string, unknown][];
  /** Resolves `connected`, or the `connect_error` (message and `data`). */
  outcome: Promise<{ connected: true } | { connected: false; message: string; data: unknown }>;
}

/**
 * A socket.io-client that records every packet the server writes to it, including packets that
 * arrive before (or instead of) the CONNECT ack: socket.io-client buffers those and never emits them.
 */
export function watchSocket(url: string, auth: Record<string, unknown>): WatchedSocket {
  const socket = io(url, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
  const events: [string, unknown][] = [];
  socket.io.on('packet', (packet: { type: number; data?: unknown[] }) => {
    // 2 = EVENT, 3 = ACK would not come unasked; only events matter here.
    if (packet.type === 2 && Array.isArray(packet.data))
      events.push([String(packet.data[0]), packet.data[1]]);
  });
  socket.on('inquiry:sync', (_event: unknown, ack?: unknown) => {
    if (typeof ack === 'function') ack();
  });
  const outcome = new Promise<WatchedSocket['outcome'] extends Promise<infer T> ? T : never>((resolve) => {
    socket.once('connect', () => resolve({ connected: true }));
    socket.once('connect_error', (error: Error & { data?: unknown }) =>
      resolve({ connected: false, message: error.message, data: error.data }),
    );
  });
  return { socket, events, outcome };
}

/** Asks `user` a question through `/mcp` and leaves the call held (the inquiry stays pending). */
export function askQuestion(
  url: string,
  user: string,
  question: string,
  signal: AbortSignal,
  extra: Record<string, unknown> = {},
): void {
  void rpcPost(
    url,
    user,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'send_inquiry', arguments: { question, ...extra } },
    },
    signal,
  ).catch(() => undefined);
}

/** The question texts among a socket's `inquiry:new` and `inquiry:sync` packets. */
export function questionsSeen(events: [string, unknown][]): string[] {
  const seen: string[] = [];
  for (const [name, payload] of events) {
    if (name === 'inquiry:new') seen.push((payload as { question: string }).question);
    if (name === 'inquiry:sync') {
      for (const inquiry of (payload as { inquiries: { question: string }[] }).inquiries) {
        seen.push(inquiry.question);
      }
    }
  }
  return seen;
}
