import { LocalChanges } from './local-changes.js';
import type { RevocationList, RevocationStore } from './revocations.js';

/** Revocations of one process (embedded mode): lost on restart, like the rest of its state. */
export class MemoryRevocationStore implements RevocationStore {
  private readonly tokens = new Map<string, number>();
  private readonly users = new Map<string, number>();
  private readonly changes = new LocalChanges();

  constructor(private readonly nowSec: () => number = () => Math.floor(Date.now() / 1000)) {}

  async revokeToken(jti: string, expiresAtSec = 0): Promise<void> {
    this.tokens.set(jti, expiresAtSec);
    this.changes.emit();
  }

  async revokeUser(userId: string, issuedUpToSec: number): Promise<void> {
    this.users.set(userId, Math.max(issuedUpToSec, this.users.get(userId) ?? 0));
    this.changes.emit();
  }

  async list(): Promise<RevocationList> {
    const now = this.nowSec();
    for (const [jti, exp] of this.tokens) if (exp > 0 && exp < now) this.tokens.delete(jti);
    return { tokens: new Map(this.tokens), users: new Map(this.users) };
  }

  onChange(listener: () => void): () => void {
    return this.changes.add(listener);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.changes.clear();
  }
}
