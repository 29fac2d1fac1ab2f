/**
 * Every Redis key and channel name the store uses, built in this one place.
 *
 * Hash tags (`{...}`) keep keys that one script touches in one Cluster slot: an inquiry's hash is
 * `{<id>}`; a user's idempotency keys, sets and tasks share `{u:<userId>}`. On a Cluster global
 * keys are each touched alone; on one Redis, create and resolve touch them in their one script.
 */
export interface StoreKeys {
  /**
   * Hash: `inquiry` (immutable JSON as created), `status`, `resolution` (JSON), `suggested` (JSON),
   * `events` (its event log: `created <at>`, then `;resolved <status> <at>`), a quorum approval's
   * `votes` (JSON array), `approvals` (count) and `voter:<userId>` (one per vote), `escalatedAt` (epoch
   * ms), and the tokens of the calls that created (on a Cluster), resolved and escalated it
   * (`createOp`, `resolveOp`, `escalateOp`).
   */
  inquiry(inquiryId: string): string;
  /** String: the inquiry id this user's idempotency key names. */
  idempotency(userId: string, idempotencyKey: string): string;
  /** Sorted set (score 0, lex order = creation order): the user's pending inquiry ids. */
  userPending(userId: string): string;
  /** Sorted set (score 0, lex order): all the user's inquiry ids. */
  userAll(userId: string): string;
  /** Sorted set (score 0, lex order): every inquiry id, for ops listings. */
  all: string;
  /** Sorted set (score 0, lex order): every pending inquiry id, for ops listings. */
  pending: string;
  /** Sorted set scored by service deadline (epoch ms): pending inquiry ids, for the timers. */
  deadlines: string;
  /** Sorted set scored by the planned escalation time (epoch ms): pending inquiry ids still to escalate. */
  escalations: string;
  /**
   * Sharded pub/sub channel, in the inquiry's slot: its resolution, once (only the changing fields:
   * status, resolution, suggested, votes, escalatedAt). Subscribed by the nodes waiting on it.
   */
  resolvedChannel(inquiryId: string): string;
  /** String: the inquiry an open MCP call waits on (for cancels that reach another node). */
  call(callKey: string): string;
  /** Hash: the user's push subscriptions, id → JSON record. */
  pushSubscriptions(userId: string): string;
  /** Sorted set scored by last save (epoch ms): the user's push subscription ids, oldest first. */
  pushOrder(userId: string): string;
  /** Hash: the user's push endpoints, endpoint → subscription id. */
  pushEndpoints(userId: string): string;
  /** String: the VAPID key pair every node signs pushes with (JSON), written once by the first node. */
  vapidKeys: string;
  /** String (JSON, expires with the task): an MCP task of the user, under the user's hash tag. */
  task(userId: string, taskId: string): string;
  /** Sorted set (score 0, lex order = creation order): `<listKey>:<taskId>` of the user's tasks. */
  userTasks(userId: string): string;
  /** String (JSON, PXAT its expiry): a pairing, by the SHA-256 of its code, in a slot of its own. */
  pairing(codeHash: string): string;
  /** Hash: the user's device records, jti → JSON. */
  userDevices(userId: string): string;
}

/**
 * Key names under `prefix` (e.g. `hitl:`).
 * @throws when the prefix holds `{` or `}`, which would break the hash tags.
 */
export function storeKeys(prefix: string): StoreKeys {
  if (/[{}]/.test(prefix)) throw new Error(`Redis key prefix must not contain "{" or "}": ${prefix}`);
  const user = (userId: string) => `${prefix}user:{u:${userId}}`;
  return {
    inquiry: (inquiryId) => `${prefix}inq:{${inquiryId}}`,
    idempotency: (userId, idempotencyKey) => `${user(userId)}:idem:${idempotencyKey}`,
    userPending: (userId) => `${user(userId)}:pending`,
    userAll: (userId) => `${user(userId)}:all`,
    all: `${prefix}all`,
    pending: `${prefix}pending`,
    deadlines: `${prefix}deadlines`,
    escalations: `${prefix}escalations`,
    resolvedChannel: (inquiryId) => `${prefix}resolved:{${inquiryId}}`,
    call: (callKey) => `${prefix}call:${callKey}`,
    pushSubscriptions: (userId) => `${user(userId)}:push`,
    pushOrder: (userId) => `${user(userId)}:push:order`,
    pushEndpoints: (userId) => `${user(userId)}:push:endpoints`,
    vapidKeys: `${prefix}push:vapid`,
    task: (userId, taskId) => `${user(userId)}:task:${taskId}`,
    userTasks: (userId) => `${user(userId)}:tasks`,
    pairing: (codeHash) => `${prefix}pairing:{p:${codeHash}}`,
    userDevices: (userId) => `${user(userId)}:devices`,
  };
}
