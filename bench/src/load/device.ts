import type { DeviceAck, DeviceInquiry, InquiryResolvedEvent } from '@hitl/protocol';
import { io, type Socket } from 'socket.io-client';

/** A lean real socket.io-client device: handlers instead of recorded history, so 10k of them stay small. */
export interface BenchDevice {
  socket: Socket;
  answer(inquiryId: string, response: string): Promise<DeviceAck>;
  /**
   * Resolves once every answer sent so far has its ack or has failed. A load waits on it before it
   * closes its devices: the node acks an answer after it resumed the call and told every device (the
   * audit record goes first), so "every call resumed" does not mean "every ack arrived".
   */
  settled(): Promise<void>;
  close(): void;
}

export interface DeviceHandlers {
  onNew?: (inquiry: DeviceInquiry) => void;
  onResolved?: (event: InquiryResolvedEvent) => void;
}

/** Connects over WebSocket (no polling, no reconnection) and resolves once connected. */
export async function openDevice(
  url: string,
  token: string,
  deviceName: string,
  handlers: DeviceHandlers,
): Promise<BenchDevice> {
  const socket = io(url, {
    auth: { token, deviceName },
    transports: ['websocket'],
    reconnection: false,
    timeout: 30_000,
  });
  if (handlers.onNew) socket.on('inquiry:new', handlers.onNew);
  if (handlers.onResolved) socket.on('inquiry:resolved', handlers.onResolved);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  const inFlight = new Set<Promise<unknown>>();
  return {
    socket,
    answer: (inquiryId, response) => {
      const ack = socket
        .timeout(60_000)
        .emitWithAck('inquiry:answer', { inquiryId, response }) as Promise<DeviceAck>;
      const done: Promise<unknown> = ack.then(
        () => inFlight.delete(done),
        () => inFlight.delete(done),
      );
      inFlight.add(done);
      return ack;
    },
    settled: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    close: () => void socket.disconnect(),
  };
}
