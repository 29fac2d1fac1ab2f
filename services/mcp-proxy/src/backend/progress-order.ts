import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * Makes a progress notification that arrives together with its request's result reach the
 * request's `onprogress` instead of being dropped.
 *
 * The v1 SDK dispatches a notification one microtask after it arrives but a response at once, and
 * the response retires the request's progress handler (modelcontextprotocol/typescript-sdk#2580):
 * when a backend's last progress and its result land in one read (a loaded machine, a stdio pipe),
 * the progress is reported as "unknown token" and lost. Delivering each response one microtask
 * later, in the same FIFO queue as the notification jobs, restores arrival order. Call after
 * `client.connect(transport)`, which installs the handler this wraps.
 */
export function deliverProgressBeforeResults(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('connect the client before wrapping its transport');
  transport.onmessage = (message, extra) => {
    const isResponse = 'id' in message && !('method' in message);
    if (isResponse) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}
