/**
 * Change listeners of a revocation store that only this process writes (memory, the SQLite state
 * file): a change is announced here, in process, right after it is recorded.
 */
export class LocalChanges {
  private readonly listeners = new Set<() => void>();

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(): void {
    for (const listener of [...this.listeners]) listener();
  }

  clear(): void {
    this.listeners.clear();
  }
}
