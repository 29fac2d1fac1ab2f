/** Where an approval grant stands. `used` and `expired` are final; only `approved` can be consumed. */
export type GrantState = 'pending' | 'approved' | 'rejected' | 'used' | 'expired';

/** A single-use permission to forward one exact call, bound to its digest, valid until `expiresAt`. */
export interface NewGrant {
  grantId: string;
  userId: string;
  /** sha256 of (user, backend, tool, canonical arguments): see `callDigest`. */
  digest: string;
  /** Epoch ms: an approval decided or used after this executes nothing. */
  expiresAt: number;
}

/** The human's verdict on a grant. */
export type GrantVerdict = 'approved' | 'rejected';

/** What recording the human's verdict on a grant did. */
export type DecideOutcome = 'approved' | 'rejected' | 'expired' | 'not_found' | 'not_pending';

/** What trying to use a grant for a call did; only `ok` lets the call through. */
export type ConsumeOutcome = 'ok' | 'not_found' | 'mismatch' | 'not_approved' | 'used' | 'expired';

/** Where an idempotent operation stands (`get_operation_status` adds `not_found`). */
export type OperationState = 'awaiting_approval' | 'in_progress' | 'done';

/** The call an operation runs, kept while it waits for a late approval (whoever collects it forwards this). */
export interface StoredCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One idempotent call: the first caller with a key owns it; everyone else waits for its result. */
export interface Operation {
  userId: string;
  key: string;
  digest: string;
  state: OperationState;
  /** Token of the caller that runs it (a later owner after a lapsed lease has another). */
  owner: string;
  inquiryId?: string;
  grantId?: string;
  /** The `tools/call` result every duplicate gets, once `done`. */
  result?: unknown;
  updatedAt: number;
  /**
   * Epoch ms until which the owner waits on it. An operation still `awaiting_approval` after that
   * (0: parked at the end of a hold) may be adopted by whoever collects it (`adoptOperation`).
   */
  driveUntil: number;
  /** The call itself, kept when its approval may outlive the hold. */
  call?: StoredCall;
}

export type BeginResult = { started: true } | { started: false; existing: Operation };

/** What a caller claiming an operation key says about it (`driveUntil` defaults to the lease's end). */
export type OperationClaim = Pick<Operation, 'userId' | 'key' | 'digest' | 'state' | 'owner' | 'call'> & {
  driveUntil?: number;
};

/** How the owner moves an unfinished operation along. */
export interface OperationPatch {
  state: Exclude<OperationState, 'done'>;
  inquiryId?: string;
  grantId?: string;
  /** A new `driveUntil` (0 parks it: the owner stopped waiting, a collector may adopt it). */
  driveUntil?: number;
}

/** An operation waiting for a late approval with nobody waiting on it: a collector may take it over. */
export function isAdoptable(op: Operation, now: number): boolean {
  return op.state === 'awaiting_approval' && op.driveUntil <= now;
}

/**
 * The proxy's shared state: approval grants and idempotent operations. The memory store serves one
 * process; the Redis store is the single source of truth across proxy nodes. Both pass one contract
 * suite (test/store-contract.ts).
 */
export interface ProxyStore {
  createGrant(grant: NewGrant): Promise<void>;
  /**
   * Records the human's verdict once; a verdict after `expiresAt` expires the grant instead. An
   * approval of edited arguments passes their call's `digest`: the grant is bound to it from then on
   * (only the approved call can use it; the asked one no longer can).
   */
  decideGrant(grantId: string, decision: GrantVerdict, now: number, digest?: string): Promise<DecideOutcome>;
  /** Atomically uses an approved grant for a call with `digest`: at most one caller ever gets `ok`. */
  consumeGrant(grantId: string, digest: string, now: number): Promise<ConsumeOutcome>;

  /** Claims `key` for this caller (`started`), or returns whoever holds it. The claim lapses after `leaseMs`. */
  beginOperation(op: OperationClaim, leaseMs: number, now: number): Promise<BeginResult>;
  /** Moves an operation the caller owns along; false when it is no longer theirs (or gone). */
  updateOperation(
    userId: string,
    key: string,
    owner: string,
    patch: OperationPatch,
    now: number,
  ): Promise<boolean>;
  /** Stores the result (kept `retentionMs`) and wakes every waiter on any node; false when not the owner. */
  finishOperation(
    userId: string,
    key: string,
    owner: string,
    result: unknown,
    retentionMs: number,
    now: number,
  ): Promise<boolean>;
  getOperation(userId: string, key: string): Promise<Operation | null>;
  /**
   * Makes `owner` the owner of an operation that {@link isAdoptable} (atomically: of several
   * collectors exactly one gets it) until `driveUntil`; null when it is not adoptable or gone.
   */
  adoptOperation(
    userId: string,
    key: string,
    owner: string,
    driveUntil: number,
    now: number,
  ): Promise<Operation | null>;
  /**
   * Waits until the operation is `done`, or `settled(op)` says so (returns it), or gone (returns null:
   * its owner's lease lapsed). Rejects with the signal's reason when aborted.
   */
  waitForOperation(
    userId: string,
    key: string,
    signal: AbortSignal,
    settled?: (op: Operation) => boolean,
  ): Promise<Operation | null>;

  /**
   * Tells every proxy node that an agent cancelled the call with `callKey` (a `notifications/cancelled`
   * can land on another node than the one running the call).
   */
  publishCancel(callKey: string): Promise<void>;
  /** Hears every cancel published by any node, this one included; resolves once listening. */
  onCancel(listener: (callKey: string) => void): Promise<void>;

  close(): Promise<void>;
}
