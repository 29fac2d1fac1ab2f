import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';
import {
  cursorAfter,
  DEFAULT_TASK_PAGE,
  decodeTask,
  type ListTasksOptions,
  listKeyOf,
  type NewTask,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
  taskRecord,
} from './tasks.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tasks (
  task_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  list_key TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_by_user ON tasks (user_id, list_key);
CREATE INDEX IF NOT EXISTS tasks_by_expiry ON tasks (expires_at);
`;

export interface SqliteTaskOptions {
  /** The node's open state file (shared with the inquiry store). */
  db: SqliteDatabase;
  now?: () => number;
}

/**
 * Task handles of a node without Redis, in its state file (table `tasks`): a task outlives a
 * restart of the node, like its inquiry. Reads skip rows past `expires_at`; a create deletes them.
 */
export class SqliteTaskStore implements TaskStore {
  private readonly now: () => number;
  private readonly insert: SqliteStatement;
  private readonly byId: SqliteStatement;
  private readonly firstPage: SqliteStatement;
  private readonly nextPage: SqliteStatement;
  private readonly dropExpired: SqliteStatement;

  constructor(options: SqliteTaskOptions) {
    const { db } = options;
    this.now = options.now ?? Date.now;
    migrate(db, 'tasks', [{ version: 1, up: SCHEMA }]);
    this.insert = db.prepare(
      'INSERT INTO tasks (task_id, user_id, list_key, expires_at, body) VALUES (?, ?, ?, ?, ?)',
    );
    this.byId = db.prepare('SELECT body FROM tasks WHERE task_id = ? AND user_id = ? AND expires_at > ?');
    this.firstPage = db.prepare(
      'SELECT body FROM tasks WHERE user_id = ? AND expires_at > ? ORDER BY list_key DESC LIMIT ?',
    );
    this.nextPage = db.prepare(
      `SELECT body FROM tasks WHERE user_id = ? AND expires_at > ? AND list_key < ?
       ORDER BY list_key DESC LIMIT ?`,
    );
    this.dropExpired = db.prepare('DELETE FROM tasks WHERE expires_at <= ?');
  }

  /** Written before the call returns the task to the client (WAL commit, like an inquiry's create). */
  async create(task: NewTask): Promise<TaskRecord> {
    const record = taskRecord(task);
    this.dropExpired.run(this.now());
    this.insert.run(record.taskId, record.userId, record.listKey, record.expiresAt, JSON.stringify(record));
    return record;
  }

  async get(taskId: string, userId: string): Promise<TaskRecord | null> {
    const row = this.byId.get(taskId, userId, this.now()) as { body: string } | undefined;
    return decodeTask(row?.body);
  }

  async list(userId: string, options: ListTasksOptions = {}): Promise<TaskPage> {
    const limit = options.limit ?? DEFAULT_TASK_PAGE;
    const after = listKeyOf(options.cursor);
    const now = this.now();
    const rows = (
      after === undefined
        ? this.firstPage.all(userId, now, limit + 1)
        : this.nextPage.all(userId, now, after, limit + 1)
    ) as { body: string }[];
    const tasks = rows
      .slice(0, limit)
      .map((row) => decodeTask(row.body))
      .filter((t): t is TaskRecord => t !== null);
    const last = tasks.at(-1);
    return rows.length > limit && last ? { tasks, nextCursor: cursorAfter(last) } : { tasks };
  }

  /** Leaves the state file open: its owner (the node) closes it. */
  async close(): Promise<void> {}
}
