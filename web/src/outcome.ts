import { type InquiryStatus, type ResolvedBy, showInvisible } from '@hitl/protocol';

/** One line saying how an inquiry ended, e.g. "Answered on Phone". */
export function outcomeText(
  status: InquiryStatus,
  resolvedBy: ResolvedBy | undefined,
  thisDevice = false,
  /** The user the asking agent acts for: a person answering for themselves is not named again. */
  askerUserId?: string,
): string {
  const device = thisDevice ? 'this device' : showInvisible(resolvedBy?.deviceName ?? 'another device');
  // Someone of a team (or of several people asked): say who, not only where.
  const other = resolvedBy?.userId !== undefined && resolvedBy.userId !== askerUserId;
  const where = !thisDevice && other ? `${device} by ${showInvisible(resolvedBy?.userId ?? '')}` : device;
  if (resolvedBy?.kind === 'decision-agent') {
    return `Decided by the fallback (${resolvedBy.strategy ?? 'agent'}) after ${triggerText(resolvedBy.trigger)}`;
  }
  switch (status) {
    case 'pending':
      return 'Waiting for an answer';
    case 'answered':
      return resolvedBy?.kind === 'human' ? `Answered on ${where}` : 'Answered';
    case 'refused':
      return `Declined on ${where}`;
    case 'timed_out':
      if (resolvedBy?.kind === 'device-timer') return `Time ran out on ${where}`;
      return 'Time ran out (the service stopped waiting)';
    case 'cancelled':
      return resolvedBy?.kind === 'ops' ? 'Cancelled by an operator' : 'Cancelled by the agent';
  }
}

function triggerText(trigger: ResolvedBy['trigger']): string {
  if (trigger === 'refusal') return 'a refusal';
  if (trigger === 'device-timer') return 'the device timeout';
  return 'the service timeout';
}
