import { closeSync, fdatasync, openSync } from 'node:fs';

/**
 * Makes the commits already in a database's WAL durable without blocking the event loop: an
 * `fdatasync` of the `-wal` file on libuv's thread pool, where a `synchronous=FULL` commit would
 * fsync on the JavaScript thread (about 1 ms of a loaded node's loop per answer on this VM's disk).
 *
 * SQLite (WAL, `synchronous=NORMAL`) has a commit in the WAL file when it returns and syncs that
 * file itself only before a checkpoint, and the database file after one; so once the WAL's data is
 * on disk, every commit made before the sync began survives a power loss too. Syncs asked for while
 * one runs share the next one (it starts after theirs were committed), so a burst of answers costs
 * two syncs, not one each.
 */
export class WalSync {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly walPath: string) {}

  /** Resolves once every commit made before this call is on disk. */
  sync(): Promise<void> {
    if (!this.running) {
      this.running = this.run();
      return this.running;
    }
    this.next ??= this.running.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  /** Closes the file handle (the database itself is closed by its owner). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private startNext(): Promise<void> {
    this.next = undefined;
    this.running = this.run();
    return this.running;
  }

  private run(): Promise<void> {
    // Opened on first use: the WAL file exists once the database has been written to.
    this.fd ??= openSync(this.walPath, 'r');
    const fd = this.fd;
    return new Promise<void>((resolve, reject) => {
      fdatasync(fd, (error) => {
        this.running = undefined;
        if (error) reject(error);
        else resolve();
      });
    });
  }
}
