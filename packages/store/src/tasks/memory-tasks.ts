import {
  cursorAfter,
  DEFAULT_TASK_PAGE,
  type ListTasksOptions,
  listKeyOf,
  type NewTask,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
  taskRecord,
} from './tasks.js';

/** Task handles of one process (`HITL_STORE=memory`): gone on restart, like its inquiries. */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  async create(task: NewTask): Promise<TaskRecord> {
    this.dropExpired();
    const record = taskRecord(task);
    this.tasks.set(record.taskId, record);
    return { ...record };
  }

  async get(taskId: string, userId: string): Promise<TaskRecord | null> {
    const record = this.tasks.get(taskId);
    if (!record || record.userId !== userId || record.expiresAt <= this.now()) return null;
    return { ...record };
  }

  async list(userId: string, options: ListTasksOptions = {}): Promise<TaskPage> {
    const limit = options.limit ?? DEFAULT_TASK_PAGE;
    const after = listKeyOf(options.cursor);
    const now = this.now();
    const mine = [...this.tasks.values()]
      .filter((t) => t.userId === userId && t.expiresAt > now && (after === undefined || t.listKey < after))
      .sort((a, b) => (a.listKey < b.listKey ? 1 : -1));
    const tasks = mine.slice(0, limit).map((t) => ({ ...t }));
    const last = tasks.at(-1);
    return mine.length > limit && last ? { tasks, nextCursor: cursorAfter(last) } : { tasks };
  }

  async close(): Promise<void> {
    this.tasks.clear();
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [id, task] of this.tasks) if (task.expiresAt <= now) this.tasks.delete(id);
  }
}
