import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { openDevice } from '../src/load/device.js';

// A load closes its devices once every call resumed; the node acks an answer later than that (after
// the audit record), so a device closed at once failed its last answers (`answer_failed` in fanout).
describe('a bench device', () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it('settles only once every answer it sent has its ack', async () => {
    const http = createServer();
    const io = new Server(http, { transports: ['websocket'] });
    closers.push(() => void io.close());
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let received!: () => void;
    const answered = new Promise<void>((resolve) => {
      received = resolve;
    });
    io.on('connection', (socket) => {
      socket.on('inquiry:answer', (_payload: unknown, ack: (reply: unknown) => void) => {
        received();
        void held.then(() => ack({ ok: true }));
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    const device = await openDevice(`http://127.0.0.1:${port}`, 'token', 'd0', {});
    closers.push(() => device.close());

    const ack = device.answer('inq-1', 'yes');
    let settled = false;
    const settling = device.settled().then(() => {
      settled = true;
    });
    await answered;
    expect(settled).toBe(false);
    release?.();
    await settling;
    expect(settled).toBe(true);
    await expect(ack).resolves.toEqual({ ok: true });
  });

  it('settles at once with nothing sent', async () => {
    const http = createServer();
    const io = new Server(http, { transports: ['websocket'] });
    closers.push(() => void io.close());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    const device = await openDevice(`http://127.0.0.1:${port}`, 'token', 'd0', {});
    closers.push(() => device.close());
    await expect(device.settled()).resolves.toBeUndefined();
  });
});
