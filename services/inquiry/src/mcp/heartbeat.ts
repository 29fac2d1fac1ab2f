import type { Inquiry } from '@hitl/protocol';
import type { Clock } from '../core/ports.js';
import type { CallExtra } from './tool-calls.js';

export interface Heartbeat {
  stop(): void;
}

/**
 * When the caller asked for progress: the first notification at once (carrying the inquiry id so a
 * client can show or later fetch it), then one every `intervalMs` so clients that reset their timeout
 * on progress keep waiting (timed on the node's clock).
 */
export function startHeartbeat(
  extra: Pick<CallExtra, '_meta' | 'sendNotification'>,
  clock: Clock,
  intervalMs: number,
  inquiry?: Inquiry,
): Heartbeat | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let progress = 0;
  const send = (message: string, meta?: Record<string, unknown>) =>
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, message, ...(meta ? { _meta: meta } : {}) },
      })
      .catch(() => undefined);
  if (inquiry) {
    void send(inquiry.question, {
      inquiryId: inquiry.inquiryId,
      question: inquiry.question,
      type: 'INQUIRY',
    });
  }
  let timer = clock.setTimeout(beat, intervalMs);
  function beat() {
    progress += 1;
    void send('waiting for the person to answer');
    timer = clock.setTimeout(beat, intervalMs);
  }
  return { stop: () => clock.clearTimeout(timer) };
}
