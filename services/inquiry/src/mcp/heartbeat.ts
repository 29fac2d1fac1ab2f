import { type Inquiry, quorumProgress } from '@hitl/protocol';
import type { Clock } from '../core/ports.js';
import type { CallExtra } from './call-context.js';

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
  /** The inquiry as it is now, for a beat that says how it progressed (escalation, votes). */
  reread?: () => Promise<Inquiry | null>,
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
  let stopped = false;
  async function beat() {
    progress += 1;
    const current = reread ? await reread().catch(() => null) : null;
    if (stopped) return;
    void send(current ? progressMessage(current) : 'waiting for the person to answer');
    timer = clock.setTimeout(beat, intervalMs);
  }
  return {
    stop: () => {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}

/** What a heartbeat says of a team's or a quorum's question: who is asked now, and how the votes stand. */
export function progressMessage(inquiry: Inquiry): string {
  const parts: string[] = [];
  const { escalation } = inquiry;
  if (escalation?.escalatedAt !== undefined) {
    const to = escalation.team ? `team ${escalation.team}` : escalation.users.join(', ');
    parts.push(`unanswered, so escalated to ${to}`);
  }
  const progress = quorumProgress(inquiry);
  if (progress) parts.push(`${progress.approvals} of ${progress.needed} approvals`);
  return parts.length === 0 ? 'waiting for the person to answer' : `${parts.join('; ')}; still waiting`;
}
