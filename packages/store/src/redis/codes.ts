/** What a store script's first reply element means; failures are small negative numbers. */
export enum ScriptCode {
  /** Nothing written: the thing already existed (idempotent create, a resolve that lost). */
  Existed = 0,
  /** Written. */
  Done = 1,
  /** The inquiry does not exist (never created, or expired). */
  NotFound = -1,
  /** The inquiry is not pending any more. */
  NotPending = -2,
  /** The user holds the maximum number of pending inquiries. */
  OverLimit = -3,
  /** A quorum approval's voter voted already. */
  AlreadyVoted = -4,
  /** A vote was kept; the inquiry is still pending. */
  Counted = 2,
}
