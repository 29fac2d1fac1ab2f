import type { Logger } from 'pino';
import { type DeviceServer, type DeviceSocket, tokenRoom } from './device-socket.js';

/**
 * What may wait for one socket beyond what the network took: a few full sync pages. A socket over
 * it is not reading, and is cut off.
 */
export const MAX_OUTGOING_BYTES = 1024 * 1024;

interface QueuedPacket {
  data?: string | ArrayBuffer | ArrayBufferView;
}
interface EngineConnection {
  writeBuffer: QueuedPacket[];
  transport: unknown;
  on(event: 'packetCreate', listener: (packet: QueuedPacket) => void): void;
  close(discard?: boolean): void;
}

const packetBytes = (packet: QueuedPacket) =>
  typeof packet.data === 'string' ? packet.data.length : (packet.data?.byteLength ?? 0);

/** The `ws` socket under a WebSocket transport (absent for long-polling). */
const webSocketOf = (conn: EngineConnection) =>
  (conn.transport as { socket?: { bufferedAmount?: number; terminate?: () => void } }).socket;

/** Bytes queued for a socket: engine.io's write buffer plus what `ws` holds unsent. */
export function outgoingBytes(conn: EngineConnection): number {
  let total = webSocketOf(conn)?.bufferedAmount ?? 0;
  for (const packet of conn.writeBuffer) total += packetBytes(packet);
  return total;
}

/**
 * Ends a socket at once, discarding what waits for it. A clean `disconnect()` would queue one more
 * packet behind a buffer that never drains and keep the connection until the ping timeout.
 */
export function dropSocket(socket: DeviceSocket, reason: string, logger: Logger): void {
  const conn = socket.conn as unknown as EngineConnection;
  logger.warn({ userId: socket.data.userId, device: socket.data.device, reason }, 'device socket dropped');
  const ws = webSocketOf(conn);
  conn.close(true);
  ws?.terminate?.();
}

/** Cuts a socket off once more than `maxBytes` wait for it (checked as each packet is queued). */
export function boundOutgoing(socket: DeviceSocket, maxBytes: number, drop: () => void): void {
  const conn = socket.conn as unknown as EngineConnection;
  let dropped = false;
  conn.on('packetCreate', (packet) => {
    if (dropped || outgoingBytes(conn) + packetBytes(packet) <= maxBytes) return;
    dropped = true;
    // Not from inside engine.io's send path: close once this packet is queued.
    queueMicrotask(drop);
  });
}

/**
 * At most `max` live sockets per token across the cluster (`fetchSockets` asks every node through
 * the adapter): the oldest beyond it are disconnected. Falls back to this node's sockets when a node
 * does not answer.
 */
export async function capSocketsPerToken(io: DeviceServer, socket: DeviceSocket, max: number): Promise<void> {
  const room = tokenRoom(socket.data.tokenKey);
  const peers = await io
    .in(room)
    .fetchSockets()
    .catch(() => io.local.in(room).fetchSockets());
  if (peers.length <= max) return;
  const oldestFirst = [...peers].sort(
    (a, b) => a.data.connectedAt - b.data.connectedAt || (a.id < b.id ? -1 : 1),
  );
  for (const old of oldestFirst.slice(0, peers.length - max)) old.disconnect(true);
}
