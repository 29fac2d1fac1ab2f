/**
 * Work queued off the caller's path: at most `concurrency` jobs at once, at most `maxWaiting` waiting
 * (beyond it a job is refused, and the caller records that), and the jobs of one key (an inquiry) one
 * after another in the order they came, so an inquiry's post goes before its update.
 */
export class KeyedQueue {
  private readonly chains = new Map<string, (() => Promise<void>)[]>();
  /** Keys whose next job may start. */
  private readonly ready: string[] = [];
  /** Keys with a job under way. */
  private readonly runningKeys = new Set<string>();
  private running = 0;
  private waitingCount = 0;
  private closed = false;
  private pumpScheduled = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly limits: { concurrency: number; maxWaiting: number },
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Jobs queued and not started. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Jobs queued or running. */
  get size(): number {
    return this.waitingCount + this.running;
  }

  /**
   * Queues `job` behind the other jobs of `key`; false when the queue is full or closed. Nothing of the
   * job runs in the caller's turn (it may be an MCP call or a device's answer): jobs start on a later one.
   */
  push(key: string, job: () => Promise<void>): boolean {
    if (this.closed || this.waitingCount >= this.limits.maxWaiting) return false;
    this.waitingCount++;
    const chain = this.chains.get(key);
    if (chain) chain.push(job);
    else {
      this.chains.set(key, [job]);
      this.ready.push(key);
    }
    if (!this.pumpScheduled) {
      this.pumpScheduled = true;
      setImmediate(() => {
        this.pumpScheduled = false;
        this.pump();
      });
    }
    return true;
  }

  /** Resolves once nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.waitingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops what waits; jobs already running finish on their own. */
  close(): void {
    this.closed = true;
    this.ready.length = 0;
    for (const [key, chain] of this.chains) {
      const keep = this.runningKeys.has(key) ? 1 : 0;
      this.waitingCount -= chain.length - keep;
      chain.length = keep;
      if (keep === 0) this.chains.delete(key);
    }
    this.settleIdle();
  }

  private pump(): void {
    while (this.running < this.limits.concurrency) {
      const key = this.ready.shift();
      if (key === undefined) return;
      const job = this.chains.get(key)?.[0];
      if (!job) continue;
      this.running++;
      this.waitingCount--;
      this.runningKeys.add(key);
      void job()
        .catch(this.onError)
        .finally(() => this.finish(key));
    }
  }

  private finish(key: string): void {
    this.running--;
    this.runningKeys.delete(key);
    const chain = this.chains.get(key);
    chain?.shift();
    if (chain?.length && !this.closed) this.ready.push(key);
    else this.chains.delete(key);
    this.pump();
    this.settleIdle();
  }

  private settleIdle(): void {
    if (this.running !== 0 || this.waitingCount !== 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
