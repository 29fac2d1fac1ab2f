/*
 * What the Slack channel keeps beside the inquiries, shared by every node: where each message of an
 * inquiry was posted (any node may have to update it), and one-time claims (a message is updated once
 * per change across the cluster; a signed request is taken once). Memory (one process), the SQLite
 * state file, or Redis: the backend (`openBackend`) makes the one beside its inquiry store.
 */

/** One posted message of an inquiry. */
export interface SlackPost {
  /** Whom it is for: `team:<team id>` (the team's channel) or `user:<user id>` (that person's DM). */
  target: string;
  /** The Slack channel (`C…`, `G…`, a DM's `D…`) and the message's `ts`: what `chat.update` needs. */
  channel: string;
  ts: string;
  /** The one person a DM is for. */
  userId?: string;
}

export interface SlackStore {
  /** Keeps a posted message of an inquiry until `until` (epoch ms); one per target. */
  addPost(inquiryId: string, post: SlackPost, until: number): Promise<void>;
  /** The inquiry's posted messages, by target (none once they expired). */
  posts(inquiryId: string): Promise<SlackPost[]>;
  /** True for exactly one caller of `key` across every node sharing the store, until `until`. */
  claim(key: string, until: number): Promise<boolean>;
}

/** How often the memory store drops what expired. */
const PRUNE_EVERY_MS = 60_000;

/** One process's store (`HITL_STORE=memory`): bounded by expiry, pruned once a minute. */
export class MemorySlackStore implements SlackStore {
  private readonly postsOf = new Map<string, { posts: Map<string, SlackPost>; until: number }>();
  private readonly claims = new Map<string, number>();
  private prunedAt = 0;

  constructor(private readonly now: () => number) {}

  async addPost(inquiryId: string, post: SlackPost, until: number): Promise<void> {
    this.prune();
    const entry = this.postsOf.get(inquiryId) ?? { posts: new Map<string, SlackPost>(), until };
    entry.posts.set(post.target, { ...post });
    entry.until = Math.max(entry.until, until);
    this.postsOf.set(inquiryId, entry);
  }

  async posts(inquiryId: string): Promise<SlackPost[]> {
    const entry = this.postsOf.get(inquiryId);
    if (!entry || entry.until <= this.now()) return [];
    return [...entry.posts.values()]
      .sort((x, y) => (x.target < y.target ? -1 : 1))
      .map((post) => ({ ...post }));
  }

  async claim(key: string, until: number): Promise<boolean> {
    this.prune();
    const held = this.claims.get(key);
    if (held !== undefined && held > this.now()) return false;
    this.claims.set(key, until);
    return true;
  }

  private prune(): void {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const [id, entry] of this.postsOf) if (entry.until <= now) this.postsOf.delete(id);
    for (const [key, until] of this.claims) if (until <= now) this.claims.delete(key);
  }
}
