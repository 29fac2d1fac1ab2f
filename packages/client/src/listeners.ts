/** A tiny typed event hub (browser-safe; no node `events`). A throwing listener never stops the rest. */
export class Listeners<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  private readonly map = new Map<keyof Events, Set<Events[keyof Events]>>();

  on<K extends keyof Events>(event: K, listener: Events[K]): () => void {
    const set = this.map.get(event) ?? new Set();
    set.add(listener);
    this.map.set(event, set);
    return () => {
      set.delete(listener);
    };
  }

  emit<K extends keyof Events>(event: K, ...args: Parameters<Events[K]>): void {
    for (const listener of [...(this.map.get(event) ?? [])]) {
      try {
        (listener as (...a: Parameters<Events[K]>) => void)(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  clear(): void {
    this.map.clear();
  }
}
