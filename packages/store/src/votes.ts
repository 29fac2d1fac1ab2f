import type { Inquiry, Resolution, Vote } from '@hitl/protocol';
import { withResolution } from './resolution.js';
import type { VoteResult } from './store.js';

/**
 * The quorum rule on an inquiry read inside the caller's atomic step (the memory and SQLite stores;
 * vote-2.lua is the same rule on Redis): one vote per user; a reject vetoes; `quorum` approvals
 * approve. `ended` is the new state to write when the result is `won` or `counted`.
 */
export function castVote(
  current: Inquiry,
  vote: Vote,
  decides: Resolution,
): Exclude<VoteResult, { kind: 'not_found' }> {
  if (current.status !== 'pending') return { kind: 'lost', inquiry: current };
  const votes = current.votes ?? [];
  if (votes.some((cast) => cast.userId === vote.userId)) return { kind: 'already_voted', inquiry: current };
  const next: Inquiry = { ...current, votes: [...votes, vote] };
  const approvals = next.votes?.filter((cast) => cast.vote === 'approve').length ?? 0;
  const decided = vote.vote === 'reject' || approvals >= (current.quorum ?? 1);
  return decided
    ? { kind: 'won', inquiry: withResolution(next, decides) }
    : { kind: 'counted', inquiry: next };
}

/** The inquiry with its planned escalation done at `at`, or undefined when none is due to happen. */
export function escalated(current: Inquiry, at: number): Inquiry | undefined {
  const { escalation } = current;
  if (current.status !== 'pending' || !escalation || escalation.escalatedAt !== undefined) return undefined;
  return { ...current, escalation: { ...escalation, escalatedAt: at } };
}
