import type { Inquiry, Page, Resolution, Vote } from '@hitl/protocol';
import type { StepAudit } from './audit/audit-chain.js';

/** What a caller hands the store to create an inquiry (the store fills status). */
export type NewInquiry = Omit<Inquiry, 'status' | 'answer' | 'resolvedBy' | 'resolvedAt'>;

export interface CreateOptions {
  /**
   * Pending inquiries one user may hold (asked by the user's agents or addressed to the user); 0 or
   * undefined means no cap. Only the asker's count is checked.
   */
  maxPendingPerUser?: number;
  /**
   * The open MCP call about to wait on the new inquiry: remembered as `rememberCall(key, id, ttlMs)`
   * would, with the create (on one Redis in its script: no command of its own). Only when this call
   * creates the inquiry; a caller that re-attaches (`created: false`) remembers its call itself.
   */
  call?: { key: string; ttlMs: number };
}

export type CreateResult =
  /** `created` is false when the idempotency key (per user) already named an inquiry: that one is returned. */
  | { kind: 'ok'; inquiry: Inquiry; created: boolean }
  /** The user already holds `maxPendingPerUser` pending inquiries; nothing was created. */
  | { kind: 'limit'; pending: number };

export type ResolveResult =
  /** This call ended the inquiry. */
  | { kind: 'won'; inquiry: Inquiry }
  /** Someone else ended it first; `inquiry` carries their resolution. */
  | { kind: 'lost'; inquiry: Inquiry }
  | { kind: 'not_found' };

export type VoteResult =
  /** The vote is kept; the quorum approval is still pending. */
  | { kind: 'counted'; inquiry: Inquiry }
  /** This vote decided it (a reject, or the approval that made the quorum). */
  | { kind: 'won'; inquiry: Inquiry }
  /** This user had voted already; nothing changed. */
  | { kind: 'already_voted'; inquiry: Inquiry }
  /** It had already ended; `inquiry` carries that resolution. */
  | { kind: 'lost'; inquiry: Inquiry }
  | { kind: 'not_found' };

export interface WaitOptions {
  /** Releases the waiter (without resolving anything) when aborted; the wait adds one 'abort' listener. */
  signal?: Pick<AbortSignal, 'aborted' | 'addEventListener' | 'removeEventListener'>;
  /** Epoch ms after which the waiter is released (without resolving anything). */
  deadline?: number;
}

export interface ListOptions {
  /**
   * Only the inquiries addressed to this user (its audience holds the user, or it has none and the
   * user asked it); all users when undefined (ops).
   */
  userId?: string;
  status: 'pending' | 'all';
  limit: number;
  cursor?: string;
}

/** A resolution as it reaches every node (one event per inquiry, at most once per node). */
export type ResolvedListener = (inquiry: Inquiry) => void;

/**
 * Where inquiries live. The memory store serves one node; the Redis store lets many nodes share
 * inquiries. Both pass `runStoreContract`.
 */
export interface InquiryStore {
  /** Creates an inquiry, or returns the one this user's idempotency key already names. */
  create(inquiry: NewInquiry, options?: CreateOptions): Promise<CreateResult>;
  get(inquiryId: string): Promise<Inquiry | null>;
  getByKey(userId: string, idempotencyKey: string): Promise<Inquiry | null>;
  /** Newest first. The cursor is opaque. */
  list(options: ListOptions): Promise<Page<Inquiry>>;
  /** Pending inquiries the user asked or is asked (what `maxPendingPerUser` counts). */
  countPending(userId: string): Promise<number>;
  /** Pending inquiries of all users (for the metrics gauge; may briefly count a just-resolved one). */
  countAllPending(): Promise<number>;
  /**
   * Ends a pending inquiry; exactly one of any number of concurrent calls wins. `asker`: the
   * inquiry's `userId` and `idempotencyKey` when the caller has read it (they never change), so a
   * store can drop its indexes in the same step; the outcome is the same without it, or with a wrong
   * guess. `addressedTo`: a user the inquiry must be addressed to (`isAddressedTo`, escalation
   * included), checked in the same step: otherwise `not_found` and nothing written (what a read first
   * and a resolve after would do, for a caller that did not read it). `audit`: the decision's record,
   * put in the audit chain's outbox by the same step exactly when this call wins.
   */
  resolve(
    inquiryId: string,
    resolution: Resolution,
    asker?: Pick<Inquiry, 'userId' | 'idempotencyKey'>,
    addressedTo?: string,
    audit?: StepAudit,
  ): Promise<ResolveResult>;
  /**
   * Casts `vote` on a pending quorum approval, in one atomic step across nodes: a user votes once; a
   * reject, or the approval that brings the approvals to `inquiry.quorum`, ends it with `decides`
   * (its votes kept on the resolved inquiry). Any other vote is only kept. `audit.record` goes to the
   * chain's outbox in the same step when the vote is kept, `audit.end` too when it decides.
   */
  vote(inquiryId: string, vote: Vote, decides: Resolution, audit?: StepAudit): Promise<VoteResult>;
  /**
   * Adds the planned escalation's users to a pending inquiry (sets `escalation.escalatedAt = at`);
   * returns the escalated inquiry when this call did it, `null` when it had ended, had no escalation
   * planned, or was escalated already. `audit.record` goes to the chain's outbox in the same step.
   */
  escalate(inquiryId: string, at: number, audit?: StepAudit): Promise<Inquiry | null>;
  /** Ids of pending inquiries whose planned escalation is due at or before `now` and not done, oldest first. */
  listDueEscalations(now: number, limit: number): Promise<string[]>;
  /** Attaches a suggested answer to a pending inquiry; false when it is no longer pending. */
  suggest(inquiryId: string, suggestedAnswer: Inquiry['suggestedAnswer']): Promise<boolean>;
  /**
   * Waits until the inquiry is resolved, the signal aborts or the deadline passes, then returns its
   * current state (still `pending` in the last two cases; `null` when it does not exist).
   * A resolution that lands while the waiter is being set up is never missed.
   */
  waitForResolution(inquiryId: string, options?: WaitOptions): Promise<Inquiry | null>;
  /** Ids of pending inquiries whose service deadline is at or before `now`, oldest first. */
  listDue(now: number, limit: number): Promise<string[]>;
  /**
   * Resolutions this instance made, and those of inquiries it was waiting on (`waitForResolution`)
   * when another node made them; not every node's (a node hears only what it waits on). Returns
   * the unsubscribe function.
   */
  onResolved(listener: ResolvedListener): () => void;
  /**
   * Remembers which inquiry an open MCP call waits on (`callKey` names the caller and its JSON-RPC
   * request id), so an explicit cancel that reaches any node can find it. Forgotten after `ttlMs`.
   */
  rememberCall(callKey: string, inquiryId: string, ttlMs: number): Promise<void>;
  /** The inquiry `callKey` was remembered for, or `null`. */
  recallCall(callKey: string): Promise<string | null>;
  /** Resolves within `timeoutMs` or throws: the readiness probe. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}
