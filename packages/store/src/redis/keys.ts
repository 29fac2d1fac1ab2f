/**
 * Every Redis key and channel name the store uses, built in this one place.
 *
 * Hash tags (`{...}`) keep keys that one script touches in one Cluster slot: an inquiry's hash is
 * `{<id>}`; a user's idempotency keys, sets and tasks share `{u:<userId>}`. The global indexes are
 * split into {@link INDEX_SHARDS} shards by a hash of the inquiry id (`{s<n>}`), so a Cluster spreads
 * them; on a Cluster each is touched alone, on one Redis create and resolve touch the inquiry's shard
 * in their one script.
 */

/** The global indexes: every id, every pending id, pending ids by service deadline, by escalation time. */
export type IndexKind = 'all' | 'pending' | 'deadlines' | 'escalations';

/**
 * Node tags an inquiry keeps in `waiters` (the oldest is dropped past this): more nodes than this
 * waiting on one inquiry at once is not expected, and a node dropped from the list still learns of
 * the end when its wait's deadline re-reads the state.
 */
export const MAX_WAITER_TAGS = 16;

/** Shards per global index (fixed: an id's shard must never move). */
export const INDEX_SHARDS = 16;

/** The index shard of an inquiry id: FNV-1a (32 bit) of the id, modulo {@link INDEX_SHARDS}. */
export function indexShard(inquiryId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < inquiryId.length; i++) {
    hash ^= inquiryId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % INDEX_SHARDS;
}

export interface StoreKeys {
  /**
   * Hash: `inquiry` (immutable JSON as created), `status`, `resolution` (JSON), `suggested` (JSON),
   * `events` (its event log: `created <at>`, then `;resolved <status> <at>`), `waiters` (the tags of
   * the nodes waiting on it, comma-separated, newest last, at most {@link MAX_WAITER_TAGS}), a quorum approval's
   * `votes` (JSON array), `approvals` (count) and `voter:<userId>` (one per vote), `escalatedAt` (epoch
   * ms), the tokens of the calls that created (on a Cluster), resolved and escalated it
   * (`createOp`, `resolveOp`, `escalateOp`), and the device deliveries recorded for the ops timeline
   * (`dlv`: the number the next one gets; `dlv:<n mod 50>`: a ring of the newest 50, JSON).
   */
  inquiry(inquiryId: string): string;
  /** List: an inquiry's device deliveries as earlier versions kept them (read, never written). */
  earlierDeliveries(inquiryId: string): string;
  /** String: the inquiry id this user's idempotency key names. */
  idempotency(userId: string, idempotencyKey: string): string;
  /** Sorted set (score 0, lex order = creation order): the user's pending inquiry ids. */
  userPending(userId: string): string;
  /** Sorted set (score 0, lex order): all the user's inquiry ids. */
  userAll(userId: string): string;
  /**
   * Sorted set, the shard of a global index that holds this id (`<kind>:{s<n>}`): `all` and
   * `pending` (score 0, lex order: ops listings, the pending gauge), `deadlines` (score = service
   * deadline, for the timers), `escalations` (score = planned escalation time, pending ids still to
   * escalate).
   */
  index(kind: IndexKind, inquiryId: string): string;
  /**
   * Every shard of an index, then the single key of versions before the sharding (`<kind>`): read
   * and cleaned of ended ids like the shards, never written.
   */
  indexKeys(kind: IndexKind): string[];
  /**
   * Sharded pub/sub channel of one node (one store instance), named by its random tag: the
   * resolutions of the inquiries it waits on, `<inquiryId> <changing fields as JSON>`. Subscribed by
   * that node for its life; an inquiry's hash lists the tags of the nodes waiting on it (`waiters`),
   * and the resolving script publishes to each but its own. Scripts build the name as
   * `nodeChannelPrefix + '{n:' + tag + '}'`.
   */
  nodeChannel(tag: string): string;
  /** The part of every {@link StoreKeys.nodeChannel} name before `{n:<tag>}`. */
  nodeChannelPrefix: string;
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
  /** String (JSON, PXAT its expiry, moved on renewal): an MCP session of the user, under the user's hash tag. */
  session(userId: string, sessionId: string): string;
  /** Sorted set scored by expiry (epoch ms): the user's MCP session ids. */
  userSessions(userId: string): string;
  /** Hash: standing approvals covering the user, `<id>` → JSON and `uses:<id>` → count. */
  userStanding(userId: string): string;
  /** Hash: every standing approval, `<id>` → `{userId, createdBy, until}` (lists, ends), in a slot of its own. */
  standingIndex: string;
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
    earlierDeliveries: (inquiryId) => `${prefix}inq:{${inquiryId}}:devices`,
    idempotency: (userId, idempotencyKey) => `${user(userId)}:idem:${idempotencyKey}`,
    userPending: (userId) => `${user(userId)}:pending`,
    userAll: (userId) => `${user(userId)}:all`,
    index: (kind, inquiryId) => `${prefix}${kind}:{s${indexShard(inquiryId)}}`,
    indexKeys: (kind) => [
      ...Array.from({ length: INDEX_SHARDS }, (_, shard) => `${prefix}${kind}:{s${shard}}`),
      `${prefix}${kind}`,
    ],
    nodeChannel: (tag) => `${prefix}node:{n:${tag}}`,
    nodeChannelPrefix: `${prefix}node:`,
    call: (callKey) => `${prefix}call:${callKey}`,
    pushSubscriptions: (userId) => `${user(userId)}:push`,
    pushOrder: (userId) => `${user(userId)}:push:order`,
    pushEndpoints: (userId) => `${user(userId)}:push:endpoints`,
    vapidKeys: `${prefix}push:vapid`,
    task: (userId, taskId) => `${user(userId)}:task:${taskId}`,
    userTasks: (userId) => `${user(userId)}:tasks`,
    pairing: (codeHash) => `${prefix}pairing:{p:${codeHash}}`,
    userDevices: (userId) => `${user(userId)}:devices`,
    session: (userId, sessionId) => `${user(userId)}:mcp-session:${sessionId}`,
    userSessions: (userId) => `${user(userId)}:mcp-sessions`,
    userStanding: (userId) => `${user(userId)}:standing`,
    standingIndex: `${prefix}standing:{ids}`,
  };
}
