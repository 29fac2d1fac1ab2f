import type { RevocationList, RevocationStore } from './revocations.js';

/** Revocations of one process (embedded mode): lost on restart, like the rest of its state. */
export class MemoryRevocationStore implements RevocationStore {
  private readonly tokens = new Map<string, number>();
  private readonly users = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly nowSec: () => number = () => Math.floor(Date.now() / 1000)) {}

  async revokeToken(jti: string, expiresAtSec = 0): Promise<void> {
    this.tokens.set(jti, expiresAtSec);
    this.changed();
  }

  async revokeUser(userId: string, issuedUpToSec: number): Promise<void> {
    this.users.set(userId, Math.max(issuedUpToSec, this.users.get(userId) ?? 0));
    this.changed();
  }

  async list(): Promise<RevocationList> {
    const now = this.nowSec();
    for (const [jti, exp] of this.tokens) if (exp > 0 && exp < now) this.tokens.delete(jti);
    return { tokens: new Map(this.tokens), users: new Map(this.users) };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
