import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

/** Options of {@link WalSync}. */
export interface WalSyncOptions {
  /**
   * While flushes take less than this on average (ms), they run on the JavaScript thread; slower
   * ones (a spinning disk, a network filesystem) move to libuv's thread pool, so a slow disk does not
   * hold the event loop. Default 2 ms; 0 always uses the pool.
   */
  inlineBelowMs?: number;
}

type Waiting = { resolve: () => void; reject: (error: unknown) => void };

/** How much the newest flush weighs in the moving average of flush times. */
const NEWEST_WEIGHT = 0.2;

/**
 * Makes the commits already in a database's WAL durable: one `fdatasync` of the `-wal` file per turn
 * of the event loop, run once the turn's I/O callbacks are done (`setImmediate`) and shared by every
 * sync asked for during that turn. Syncs asked for while a flush runs on the pool share the next one.
 *
 * SQLite (WAL, `synchronous=NORMAL`) has a commit in the WAL file when it returns and syncs that file
 * itself only before a checkpoint, and the database file after one; so once the WAL's data is on
 * disk, every commit made before the sync began survives a power loss too.
 *
 * Why on the JavaScript thread while the disk is fast: the flush itself is short (0.08 ms for a page,
 * 0.16 ms for the ~25 pages of a busy turn, on this VM's disk), and a pool round trip (a worker woken,
 * then the loop woken back) added about as much again to every answer (bench/results/HISTORY.md, session 7).
 * On a disk where a flush takes milliseconds that trade reverses, hence the moving average.
 */
export class WalSync {
  private fd: number | undefined;
  private waiting: Waiting[] = [];
  private scheduled: ReturnType<typeof setImmediate> | undefined;
  /** A flush is running on the pool. */
  private pooled = false;
  private closed = false;
  private flushed = 0;
  private averageMs = 0;
  private readonly inlineBelowMs: number;

  constructor(
    private readonly walPath: string,
    options: WalSyncOptions = {},
  ) {
    this.inlineBelowMs = options.inlineBelowMs ?? 2;
  }

  /** Resolves once every commit made before this call is on disk. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.walPath}: sync asked for after close`));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.schedule();
    });
  }

  /** How many flushes ran (each served every sync asked for in its turn). */
  get flushes(): number {
    return this.flushed;
  }

  /** Whether the next flush runs on the pool (the recent ones were slow). */
  get onPool(): boolean {
    return this.averageMs >= this.inlineBelowMs;
  }

  /**
   * Syncs what is still asked for (here, on this thread), then closes the file handle once no flush
   * runs on the pool (the database itself is closed by its owner).
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const waiting = this.take();
    if (waiting.length > 0) this.flushHere(waiting);
    if (!this.pooled) this.closeFile();
  }

  private schedule(): void {
    if (this.pooled || this.scheduled) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      const waiting = this.take();
      if (waiting.length === 0) return;
      if (this.onPool) this.flushOnPool(waiting);
      else this.flushHere(waiting);
    });
  }

  private take(): Waiting[] {
    const waiting = this.waiting;
    this.waiting = [];
    return waiting;
  }

  private flushHere(waiting: Waiting[]): void {
    this.flushed++;
    const started = performance.now();
    try {
      fdatasyncSync(this.open());
    } catch (error) {
      settle(waiting, error);
      return;
    }
    this.record(performance.now() - started);
    settle(waiting);
  }

  private flushOnPool(waiting: Waiting[]): void {
    this.flushed++;
    let fd: number;
    try {
      fd = this.open();
    } catch (error) {
      settle(waiting, error);
      return;
    }
    this.pooled = true;
    const started = performance.now();
    fdatasync(fd, (error) => {
      this.pooled = false;
      this.record(performance.now() - started);
      settle(waiting, error ?? undefined);
      if (this.closed) this.closeFile();
      else if (this.waiting.length > 0) this.schedule();
    });
  }

  /** The WAL's handle, opened on first use: the file exists once the database has been written to. */
  private open(): number {
    this.fd ??= openSync(this.walPath, 'r');
    return this.fd;
  }

  private record(ms: number): void {
    this.averageMs = this.averageMs * (1 - NEWEST_WEIGHT) + ms * NEWEST_WEIGHT;
  }

  private closeFile(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function settle(waiting: Waiting[], error?: unknown): void {
  for (const sync of waiting) {
    if (error === undefined) sync.resolve();
    else sync.reject(error);
  }
}
