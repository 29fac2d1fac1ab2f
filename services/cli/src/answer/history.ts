import { type Inquiry, InquirySchema } from '@hitl/protocol';
import { plain, preview } from './text.js';

/** How many past inquiries `hitl answer --history` lists. */
export const HISTORY_LIMIT = 50;

/**
 * The person's past inquiries: `GET /api/inquiries?status=all` with the device token, which
 * the node scopes to its own user. Pending ones are left out (they are what `hitl answer` is for).
 * Each item is checked with the protocol's schema; a malformed one is skipped.
 */
export async function fetchHistory(
  url: string,
  token: string,
  fetchFn: typeof fetch = fetch,
): Promise<{ ok: true; items: Inquiry[] } | { ok: false; status: number; problem: string }> {
  const response = await fetchFn(`${url}/api/inquiries?status=all&limit=${HISTORY_LIMIT}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = (await response.json().catch(() => null)) as {
    items?: unknown;
    error?: { message?: string };
  } | null;
  if (!response.ok) {
    return { ok: false, status: response.status, problem: body?.error?.message ?? `HTTP ${response.status}` };
  }
  const items = (Array.isArray(body?.items) ? body.items : []).flatMap((item) => {
    const parsed = InquirySchema.safeParse(item);
    return parsed.success && parsed.data.status !== 'pending' ? [parsed.data] : [];
  });
  return { ok: true, items };
}

/**
 * What was answered, in words: approvals as approved / rejected, forms as `field: value` pairs. Only a
 * real answer or a fallback's decision: a refusal's or timeout's preset text is not an answer.
 */
function answerWords(inquiry: Inquiry): string | undefined {
  const { answer } = inquiry;
  const decided = inquiry.status === 'answered' || inquiry.resolvedBy?.kind === 'decision-agent';
  if (answer === undefined || !decided) return undefined;
  if (inquiry.kind === 'approval' && (answer === 'approve' || answer === 'reject')) {
    return answer === 'approve' ? 'approved' : 'rejected';
  }
  if (typeof answer === 'string') return `"${preview(answer, 80)}"`;
  return Object.entries(answer)
    .map(([field, value]) => `${plain(field)}: ${preview(JSON.stringify(value), 40)}`)
    .join(', ');
}

/** How it ended, naming the device (history has no "this device": names are what the person gave). */
function howItEnded(inquiry: Inquiry): string {
  const by = inquiry.resolvedBy;
  const on = `on ${plain(by?.deviceName ?? 'a device')}`;
  if (by?.kind === 'decision-agent') return `decided by the fallback (${by.strategy ?? 'agent'})`;
  switch (inquiry.status) {
    case 'answered':
      return by?.kind === 'human' ? `answered ${on}` : 'answered';
    case 'refused':
      return `declined ${on}`;
    case 'timed_out':
      return by?.kind === 'device-timer'
        ? `time ran out ${on}`
        : 'time ran out (the service stopped waiting)';
    case 'cancelled':
      return by?.kind === 'ops' ? 'cancelled by an operator' : 'cancelled by the agent';
    case 'pending':
      return 'still waiting';
  }
}

/** `when` as the local date and time, to the minute. */
const when = (ms: number) =>
  new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * One block per past inquiry, newest first: when it ended, the question, and how:
 * "answered on Phone: "M"", "declined on Laptop", "time ran out ...", "cancelled by an operator".
 */
export function historyLines(items: readonly Inquiry[]): string[] {
  if (items.length === 0) return ['Nothing answered yet.'];
  return items.flatMap((inquiry) => {
    const how = howItEnded(inquiry);
    const answer = answerWords(inquiry);
    const at = inquiry.resolvedAt === undefined ? '' : `${when(inquiry.resolvedAt)}  `;
    const asker = inquiry.asker.name ?? inquiry.asker.tokenSubject;
    return [
      `${at}${preview(inquiry.question, 70)}`,
      `    ${how}${answer ? `: ${answer}` : ''} · asked by ${preview(asker, 40)}`,
    ];
  });
}
