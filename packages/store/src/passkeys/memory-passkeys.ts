import {
  type ChallengeRecord,
  counterMovesOn,
  type PasskeyRecord,
  type PasskeyStore,
  type PasskeyUse,
} from './passkeys.js';

/** Challenges kept at most (the oldest go first): a stranger's token cannot make this grow without end. */
const MAX_CHALLENGES = 10_000;

/** Passkeys in process memory (`HITL_STORE=memory`, tests). */
export class MemoryPasskeyStore implements PasskeyStore {
  private readonly keys = new Map<string, PasskeyRecord>();
  private readonly challenges = new Map<string, ChallengeRecord>();

  async add(record: PasskeyRecord): Promise<'added' | 'exists'> {
    if (this.keys.has(record.id)) return 'exists';
    this.keys.set(record.id, structuredClone(record));
    return 'added';
  }

  async list(userId: string): Promise<PasskeyRecord[]> {
    return [...this.keys.values()].filter((k) => k.userId === userId).map((k) => structuredClone(k));
  }

  async get(userId: string, id: string): Promise<PasskeyRecord | null> {
    const key = this.keys.get(id);
    return key && key.userId === userId ? structuredClone(key) : null;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    if (this.keys.get(id)?.userId !== userId) return false;
    return this.keys.delete(id);
  }

  async use(userId: string, id: string, counter: number, at: number): Promise<PasskeyUse> {
    const key = this.keys.get(id);
    if (!key || key.userId !== userId) return 'not_found';
    if (!counterMovesOn(key.counter, counter)) return 'counter_not_increased';
    key.counter = counter;
    key.lastUsedAt = at;
    return 'used';
  }

  async putChallenge(record: ChallengeRecord): Promise<void> {
    if (this.challenges.size >= MAX_CHALLENGES) {
      const oldest = this.challenges.keys().next().value;
      if (oldest !== undefined) this.challenges.delete(oldest);
    }
    this.challenges.set(record.challenge, structuredClone(record));
  }

  async takeChallenge(challenge: string, now: number): Promise<ChallengeRecord | null> {
    const record = this.challenges.get(challenge);
    this.challenges.delete(challenge);
    return record && record.expiresAt > now ? record : null;
  }

  async close(): Promise<void> {}
}
