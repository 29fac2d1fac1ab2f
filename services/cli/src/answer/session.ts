import type { ConnectionStatus, DeviceSnapshot, PendingInquiry, ResolvedNotice } from '@hitl/client';
import type { AnswerExtras, DeviceAck, InquiryResponse } from '@hitl/protocol';
import { type Draft, startDraft, stepIntro, stepLabel } from './draft.js';
import { endingText, inquiryLines } from './render.js';
import { countdown, preview } from './text.js';

/** Everything the terminal device shows: the queue, the inquiry being answered, the connection. */
export interface SessionState {
  /** Pending inquiries, oldest first: the order they are offered in. */
  readonly pending: readonly PendingInquiry[];
  /** The inquiry being answered, if any. */
  readonly draft?: Draft;
  /** An answer or refusal of the open inquiry is on its way (waiting for the server's ack). */
  readonly sending: boolean;
  /** Ids already shown, so a re-sync never announces them twice. */
  readonly seen: ReadonlySet<string>;
  readonly status: ConnectionStatus;
  /** Whether "waiting for questions" was said since the queue last emptied. */
  readonly idleShown: boolean;
}

/** What the I/O edge must do after an update. */
export type Effect =
  | { type: 'answer'; inquiryId: string; response: InquiryResponse; extras?: AnswerExtras }
  | { type: 'refuse'; inquiryId: string; reason?: string }
  | { type: 'quit'; code: number };

export interface Update {
  state: SessionState;
  /** Lines to print, in order. */
  print: string[];
  effects: Effect[];
}

export const initialSession: SessionState = {
  pending: [],
  sending: false,
  seen: new Set(),
  status: 'connecting',
  idleShown: false,
};

const none = (state: SessionState, print: string[] = []): Update => ({ state, print, effects: [] });

/** Opens an inquiry: prints it and the first step. */
export function open(state: SessionState, inquiry: PendingInquiry, now: number): Update {
  const draft = startDraft(inquiry);
  const others = state.pending.length - 1;
  const more = others > 0 ? [`(${others} more waiting: /list)`] : [];
  return none({ ...state, draft, sending: false, idleShown: false }, [
    ...inquiryLines(inquiry, now),
    ...stepIntro(draft),
    ...more,
  ]);
}

/** With nothing open: offers the oldest pending inquiry, or says it is waiting (once). */
function offerNext(update: Update, now: number): Update {
  const { state } = update;
  if (state.draft || state.sending || state.status !== 'connected') return update;
  const next = state.pending[0];
  if (next) {
    const opened = open(state, next, now);
    return { ...opened, print: [...update.print, ...opened.print], effects: update.effects };
  }
  if (state.idleShown) return update;
  return {
    ...update,
    state: { ...state, idleShown: true },
    print: [...update.print, 'No questions waiting. New ones appear here (Ctrl-C to quit).'],
  };
}

function statusLines(snapshot: DeviceSnapshot): string[] {
  switch (snapshot.status) {
    case 'connected':
      return ['Connected.'];
    case 'reconnecting':
      return [`Connection lost${snapshot.error ? ` (${snapshot.error})` : ''}; reconnecting...`];
    case 'rejected':
      return [
        `The server refused this device: ${snapshot.errorCode ?? 'unauthorized'}${snapshot.error ? ` (${snapshot.error})` : ''}`,
      ];
    default:
      return [];
  }
}

/** A new device snapshot: connection changes, newly arrived inquiries, the queue. */
export function onSnapshot(state: SessionState, snapshot: DeviceSnapshot, now: number): Update {
  const print = snapshot.status === state.status ? [] : statusLines(snapshot);
  if (snapshot.status === 'rejected') {
    return { state: { ...state, status: 'rejected' }, print, effects: [{ type: 'quit', code: 2 }] };
  }
  const pending = [...snapshot.inquiries].reverse();
  const seen = new Set(state.seen);
  for (const inquiry of pending) {
    if (seen.has(inquiry.inquiryId)) continue;
    seen.add(inquiry.inquiryId);
    if (state.draft) print.push(`+ New: ${preview(inquiry.question)} (/list)`);
  }
  const next = none({ ...state, pending, seen, status: snapshot.status }, print);
  // Before the first sync of a connection the list may be stale: offer nothing yet.
  return snapshot.synced ? offerNext(next, now) : next;
}

/** An inquiry ended (here or elsewhere): say how; if it was open, move on to the next. */
export function onResolved(state: SessionState, notice: ResolvedNotice, now: number): Update {
  const pending = state.pending.filter((i) => i.inquiryId !== notice.inquiryId);
  const wasOpen = state.draft?.inquiry.inquiryId === notice.inquiryId;
  const inquiry = wasOpen ? state.draft?.inquiry : notice.inquiry;
  const print = inquiry
    ? [`-- ${preview(inquiry.question)}: ${endingText(notice, inquiry.asker.tokenSubject)}`]
    : [];
  if (!wasOpen) return none({ ...state, pending }, print);
  const { draft: _closed, ...rest } = state;
  return offerNext(none({ ...rest, pending, sending: false }, print), now);
}

/** The server's ack to this device's answer or refusal; a failure leaves the inquiry open to retry. */
export function onAck(state: SessionState, inquiryId: string, ack: DeviceAck, now: number): Update {
  if (state.draft?.inquiry.inquiryId !== inquiryId) return none(state);
  if (ack.ok && ack.status === 'pending') {
    // A quorum approval counted this vote; the others decide the rest.
    const approvals = ack.votes?.filter((v) => v.vote === 'approve').length ?? 0;
    const needed = state.draft.inquiry.quorum ?? 1;
    const { draft: _voted, ...rest } = state;
    const pending = state.pending.filter((i) => i.inquiryId !== inquiryId);
    const said = `-- Your vote is counted: ${approvals} of ${needed} approvals so far; the others decide the rest.`;
    return offerNext(none({ ...rest, pending, sending: false }, [said]), now);
  }
  // Normally the "resolved" event has already closed it; these cover an ending without one.
  if (ack.ok) return onResolved(state, { inquiryId, status: ack.status, byThisDevice: true }, now);
  if (ack.error.code === 'already_resolved') {
    const by = ack.resolvedBy ? { resolvedBy: ack.resolvedBy } : {};
    return onResolved(
      state,
      { inquiryId, status: ack.status ?? 'answered', byThisDevice: false, ...by },
      now,
    );
  }
  if (ack.error.code === 'not_found') {
    const { draft: _gone, ...rest } = state;
    const pending = state.pending.filter((i) => i.inquiryId !== inquiryId);
    return offerNext(
      none({ ...rest, pending, sending: false }, ['-- That question is no longer there.']),
      now,
    );
  }
  return none({ ...state, sending: false }, [`! Not sent: ${ack.error.message}. Try again, or /refuse.`]);
}

/** The input prompt: time left and the step while answering. */
export function promptText(state: SessionState, now: number): string {
  const offline = state.status === 'connected' ? '' : '(offline) ';
  if (!state.draft) return `${offline}> `;
  const left = countdown(state.draft.inquiry.localDeviceAt - now);
  return `${offline}[${left}] ${stepLabel(state.draft)}> `;
}
