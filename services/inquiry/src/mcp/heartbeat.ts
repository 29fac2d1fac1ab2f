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
  let timer = clock.setTimeout(beat, untilBeat(clock, intervalMs));
  let stopped = false;
  async function beat() {
    progress += 1;
    const current = reread ? await reread().catch(() => null) : null;
    if (stopped) return;
    void send(current ? progressMessage(current) : 'waiting for the person to answer');
    timer = clock.setTimeout(beat, untilBeat(clock, intervalMs));
  }
  return {
    stop: () => {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}

/**
 * The delay to the next beat: `intervalMs`, rounded up to a whole slot of the clock (a tenth of the
 * interval, at most one second). Every held call due within the same slot then beats on the same
 * timer tick, so a node holding thousands of calls wakes once per slot rather than once per call
 * (issue 41); a beat is at most a tenth of the interval late.
 */
export function untilBeat(clock: Clock, intervalMs: number): number {
  const slot = Math.min(1000, Math.max(1, Math.floor(intervalMs / 10)));
  const now = clock.now();
  return Math.ceil((now + intervalMs) / slot) * slot - now;
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
