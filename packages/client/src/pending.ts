import type { DeviceInquiry, InquiryResolvedEvent, InquirySyncEvent, Vote } from '@hitl/protocol';

/** A pending inquiry as a device holds it: the server's copy plus its deadline on the local clock. */
export interface PendingInquiry extends DeviceInquiry {
  /** How far the server clock ran ahead of this device's clock when this copy arrived, in ms. */
  skewMs: number;
  /**
   * The deadline this device counts down to, on its own clock (epoch ms): `deadlines.deviceAt`, which
   * for an inquiry with an answer window is its `answerBy` (no device timer fires for those).
   */
  localDeviceAt: number;
}

/** Everything a device knows about its user's open inquiries. Replaced, never mutated. */
export interface PendingState {
  readonly inquiries: ReadonlyMap<string, PendingInquiry>;
  /** Ids seen ending (oldest first), so a late or replayed copy never brings one back. */
  readonly ended: readonly string[];
}

/** How many ended ids a device remembers. */
export const ENDED_MEMORY = 1000;

export const emptyPendingState: PendingState = { inquiries: new Map(), ended: [] };

/**
 * Stamps a received copy with the clock skew seen at receipt. Network delay makes the server look
 * slightly behind, so the local deadline errs late by at most the one-way latency.
 */
export function received(inquiry: DeviceInquiry, localNow: number): PendingInquiry {
  const skewMs = inquiry.serverTime - localNow;
  return { ...inquiry, skewMs, localDeviceAt: inquiry.deadlines.deviceAt - skewMs };
}

/**
 * `inquiry:sync` (all its pages together): the server's list replaces ours (minus any we already
 * saw end). `keep` names held inquiries that arrived live while the pages came in: the list was read
 * before them, so they stay.
 */
export function applySync(
  state: PendingState,
  event: Pick<InquirySyncEvent, 'inquiries'> & Partial<InquirySyncEvent>,
  localNow: number,
  keep: ReadonlySet<string> = new Set(),
): { state: PendingState; added: PendingInquiry[] } {
  const ended = new Set(state.ended);
  const inquiries = new Map<string, PendingInquiry>();
  const added: PendingInquiry[] = [];
  for (const inquiry of event.inquiries) {
    if (ended.has(inquiry.inquiryId)) continue;
    const copy = received(inquiry, localNow);
    inquiries.set(inquiry.inquiryId, copy);
    if (!state.inquiries.has(inquiry.inquiryId)) added.push(copy);
  }
  for (const id of keep) {
    const held = state.inquiries.get(id);
    if (held && !inquiries.has(id)) inquiries.set(id, held);
  }
  return { state: { ...state, inquiries }, added };
}

/** `inquiry:new`: adds it, unless it is already held or already ended (duplicates are ignored). */
export function applyNew(
  state: PendingState,
  inquiry: DeviceInquiry,
  localNow: number,
): { state: PendingState; added?: PendingInquiry } {
  if (state.inquiries.has(inquiry.inquiryId) || state.ended.includes(inquiry.inquiryId)) return { state };
  const copy = received(inquiry, localNow);
  const inquiries = new Map(state.inquiries).set(inquiry.inquiryId, copy);
  return { state: { ...state, inquiries }, added: copy };
}

/** `inquiry:updated`: merges the new copy into one we hold; an unknown or ended one is ignored. */
export function applyUpdated(state: PendingState, inquiry: DeviceInquiry, localNow: number): PendingState {
  const held = state.inquiries.get(inquiry.inquiryId);
  if (!held) return state;
  const merged = { ...held, ...received(inquiry, localNow) };
  return { ...state, inquiries: new Map(state.inquiries).set(inquiry.inquiryId, merged) };
}

/** A counted vote on a quorum approval (this device's own ack): the votes so far, kept on the card. */
export function applyVotes(state: PendingState, inquiryId: string, votes: Vote[]): PendingState {
  const held = state.inquiries.get(inquiryId);
  if (!held || (held.votes?.length ?? 0) > votes.length) return state;
  return { ...state, inquiries: new Map(state.inquiries).set(inquiryId, { ...held, votes }) };
}

/** `inquiry:resolved` (or a settled ack): removes it and remembers that it ended. */
export function applyResolved(
  state: PendingState,
  event: Pick<InquiryResolvedEvent, 'inquiryId'>,
): { state: PendingState; removed?: PendingInquiry } {
  const removed = state.inquiries.get(event.inquiryId);
  const alreadyEnded = state.ended.includes(event.inquiryId);
  if (!removed && alreadyEnded) return { state };
  const inquiries = new Map(state.inquiries);
  inquiries.delete(event.inquiryId);
  const ended = alreadyEnded ? state.ended : [...state.ended, event.inquiryId].slice(-ENDED_MEMORY);
  return { state: { inquiries, ended }, ...(removed ? { removed } : {}) };
}

/** Pending inquiries, newest first (ULID ids break ties in creation order). */
export function newestFirst(state: PendingState): PendingInquiry[] {
  return [...state.inquiries.values()].sort(
    (a, b) => b.createdAt - a.createdAt || (a.inquiryId < b.inquiryId ? 1 : -1),
  );
}
