import { closeSync, fdatasyncSync, openSync } from 'node:fs';

/**
 * Makes the commits already in a database's WAL durable: one `fdatasync` of the `-wal` file per turn
 * of the event loop, run once the turn's I/O callbacks are done (`setImmediate`) and shared by every
 * sync asked for during that turn.
 *
 * SQLite (WAL, `synchronous=NORMAL`) has a commit in the WAL file when it returns and syncs that file
 * itself only before a checkpoint, and the database file after one; so once the WAL's data is on
 * disk, every commit made before the sync began survives a power loss too.
 *
 * Why on the JavaScript thread, not libuv's pool: the flush itself is short (0.08 ms for a page,
 * 0.16 ms for the ~25 pages of a busy turn, on this VM's disk), and a pool round trip (a worker woken,
 * then the loop woken back) added about as much again to every answer; sharing one sync per turn keeps
 * a burst of answers to one flush, as the pool's queued sync did (docs/BENCHMARKS.md, session 7).
 */
export class WalSync {
  private fd: number | undefined;
  private waiting: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private scheduled: ReturnType<typeof setImmediate> | undefined;
  private flushed = 0;

  constructor(private readonly walPath: string) {}

  /** Resolves once every commit made before this call is on disk. */
  sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** How many flushes ran (each served every sync asked for in its turn). */
  get flushes(): number {
    return this.flushed;
  }

  /** Syncs what is still asked for, then closes the file handle (the database is closed by its owner). */
  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private flush(): void {
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    this.waiting = [];
    this.flushed++;
    try {
      // Opened on first use: the WAL file exists once the database has been written to.
      this.fd ??= openSync(this.walPath, 'r');
      fdatasyncSync(this.fd);
    } catch (error) {
      for (const sync of waiting) sync.reject(error);
      return;
    }
    for (const sync of waiting) sync.resolve();
  }
}
