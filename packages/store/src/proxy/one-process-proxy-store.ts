import { OperationWaiters } from './op-waiters.js';
import type { Operation, ProxyStore } from './proxy-store.js';

/**
 * What the proxy stores of one process (memory, SQLite) share: a waiter is woken by this process's
 * finish alone, and a cancel reaches this process's listeners only. The grants and operations are
 * the subclass's.
 */
export abstract class OneProcessProxyStore
  implements Pick<ProxyStore, 'waitForOperation' | 'publishCancel' | 'onCancel'>
{
  protected readonly waiters: OperationWaiters;
  private readonly cancelListeners = new Set<(callKey: string) => void>();

  /** `waitPollMs`: how often a waiter re-reads without a wake-up. */
  constructor(waitPollMs?: number) {
    this.waiters = new OperationWaiters(waitPollMs);
  }

  abstract getOperation(userId: string, key: string): Promise<Operation | null>;

  waitForOperation(
    userId: string,
    key: string,
    signal: AbortSignal,
    settled?: (op: Operation) => boolean,
  ): Promise<Operation | null> {
    return this.waiters.waitFor(this, userId, key, signal, settled);
  }

  async publishCancel(callKey: string): Promise<void> {
    for (const listener of this.cancelListeners) listener(callKey);
  }

  async onCancel(listener: (callKey: string) => void): Promise<void> {
    this.cancelListeners.add(listener);
  }
}
