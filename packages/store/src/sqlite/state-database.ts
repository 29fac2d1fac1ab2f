import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'libsql';
import { WalSync } from './wal-sync.js';

/** An open SQLite database (libsql's better-sqlite3-compatible synchronous API). */
export type SqliteDatabase = Database.Database;
/** A prepared statement of a {@link SqliteDatabase}. */
export type SqliteStatement = Database.Statement;

/** A second process tried to open a state file another live process holds. */
export class StateLockedError extends Error {
  override readonly name = 'StateLockedError';
}

/** The program a state file belongs to, as the refusal to a second process names it. */
export type StateHolder = 'hitl node' | 'hitl proxy';

/** An open state file: the database, held exclusively by this process until `close()`. */
export interface StateDatabase {
  db: SqliteDatabase;
  path: string;
  /**
   * Resolves once every commit made before the call is on disk (survives a power loss): one
   * `fdatasync` per turn of the event loop, shared by every call of that turn; see {@link WalSync}.
   */
  syncWal(): Promise<void>;
  close(): void;
}

/**
 * Opens (creating when missing) the SQLite file at `path` for this process alone, WAL journal with
 * `synchronous=NORMAL`: a commit is in the WAL (the OS has it) when it returns, so it survives
 * `kill -9`; only a power loss or OS crash can drop the commits since the last fsync. A write that must
 * also survive that (an answer, a revocation, a used grant, before each is acknowledged) awaits
 * `syncWal()` after its commit: the one durability path, one fsync of the WAL per turn of the event
 * loop shared by every write of that turn.
 *
 * Exclusivity comes from a second, tiny SQLite file beside it (`<path>.lock`) opened with
 * `locking_mode=EXCLUSIVE` and written once: SQLite keeps that file's lock until the connection closes,
 * and the operating system drops it when the process dies, so a crash never leaves a stale lock.
 * (The lock lives in its own file because libsql keeps a connection open while prepared statements
 * are alive, which would hold an exclusive lock on the main file past `close()`.) A second process gets
 * {@link StateLockedError} naming the holder's pid, read from `<path>.pid` (written only for this message).
 *
 * `holder` names the program in that message (`hitl node`, `hitl proxy`).
 *
 * @throws StateLockedError when another live process (or another open in this one) holds the file.
 */
export function openStateDatabase(path: string, holder: StateHolder = 'hitl node'): StateDatabase {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const pidPath = `${path}.pid`;
  const lock = new Database(`${path}.lock`, { timeout: 0 });
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    lock.close();
    if (isBusy(error)) throw new StateLockedError(lockedMessage(path, pidPath, holder));
    throw error;
  }
  let db: SqliteDatabase;
  try {
    db = new Database(path, { timeout: 5000 });
    // Only takes effect on a file without tables: lets retention hand freed pages back to the disk.
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
  } catch (error) {
    lock.close();
    throw error;
  }
  writeFileSync(pidPath, `${process.pid}\n`);
  const wal = new WalSync(`${path}-wal`);
  let open = true;
  return {
    db,
    path,
    syncWal: () => wal.sync(),
    close: () => {
      if (!open) return;
      open = false;
      wal.close();
      db.close();
      rmSync(pidPath, { force: true });
      lock.close();
    },
  };
}

/** Where a node keeps its inquiries inside its state directory. */
export function inquiryDatabasePath(stateDir: string): string {
  return join(stateDir, 'hitl.db');
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function lockedMessage(path: string, pidPath: string, program: StateHolder): string {
  let holder = 'another process';
  try {
    const pid = readFileSync(pidPath, 'utf8').trim();
    if (/^\d+$/.test(pid)) holder = `process ${pid}`;
  } catch {
    // No pid file: the holder is just "another process".
  }
  const one = program.slice('hitl '.length);
  return (
    `${path} is in use by ${holder}: only one ${program} may run on a state directory. ` +
    `Stop it, or give this ${one} its own HITL_STATE_DIR (or use REDIS_URL to run several ${one}s).`
  );
}
