import type { PushSubscriptionRecord } from './push-subscriptions.js';

/** Users whose lists one node keeps (least recently used go first): ~100 B each for most users, who have none. */
export const MAX_CACHED_PUSH_USERS = 10_000;

/**
 * Per-user subscription lists one node keeps for sending, dropped on every change it hears of. A
 * read that started before a change is not kept (the generation moved on meanwhile), so a list is
 * never older than the last change heard.
 */
export class PushListCache {
  private readonly lists = new Map<string, PushSubscriptionRecord[]>();
  private generation = 0;

  constructor(private readonly max = MAX_CACHED_PUSH_USERS) {}

  /** The kept list (a copy), or undefined; a hit counts as a use. */
  get(userId: string): PushSubscriptionRecord[] | undefined {
    const list = this.lists.get(userId);
    if (list === undefined) return undefined;
    this.lists.delete(userId);
    this.lists.set(userId, list);
    return structuredClone(list);
  }

  /** Reads through `read` unless kept; keeps what it read if nothing changed meanwhile. */
  async through(
    userId: string,
    read: (userId: string) => Promise<PushSubscriptionRecord[]>,
  ): Promise<PushSubscriptionRecord[]> {
    const kept = this.get(userId);
    if (kept) return kept;
    const started = this.generation;
    const list = await read(userId);
    if (this.generation === started) {
      this.lists.set(userId, structuredClone(list));
      if (this.lists.size > this.max) this.lists.delete(this.lists.keys().next().value as string);
    }
    return list;
  }

  /** A user's subscriptions changed (here or on another node). */
  changed(userId: string): void {
    this.generation += 1;
    this.lists.delete(userId);
  }

  /** Changes may have been missed (the feed was down): forget everything. */
  clear(): void {
    this.generation += 1;
    this.lists.clear();
  }
}
