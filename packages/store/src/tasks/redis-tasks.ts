import { RedisBackedStore, type RedisStoreOptions } from '../redis/redis-backed-store.js';
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

export type RedisTaskOptions = RedisStoreOptions;

/**
 * Task handles shared by every node. Both keys of a user's task share the user's hash tag
 * (`{u:<userId>}`), so a create is one MULTI even on a Cluster: `<prefix>user:{u:<id>}:task:<taskId>`
 * holds the task's JSON and expires with it (PXAT); `<prefix>user:{u:<id>}:tasks` lists
 * `<listKey>:<taskId>` in creation order and lives as long as its longest-lived task. A member whose
 * task has expired is dropped when a listing meets it.
 */
export class RedisTaskStore extends RedisBackedStore implements TaskStore {
  async create(task: NewTask): Promise<TaskRecord> {
    const record = taskRecord(task);
    const listKey = this.keys.userTasks(task.userId);
    const at = String(record.expiresAt);
    const replies = await this.redis
      .multi()
      .set(this.keys.task(task.userId, task.taskId), JSON.stringify(record), 'PXAT', at)
      .zadd(listKey, 0, `${record.listKey}:${record.taskId}`)
      // A fresh set has no expiry (NX sets one); a longer-lived task extends it (GT).
      .pexpireat(listKey, at, 'NX')
      .pexpireat(listKey, at, 'GT')
      .exec();
    const failed = replies?.find(([error]) => error);
    if (!replies || failed) throw failed?.[0] ?? new Error('task create aborted');
    return record;
  }

  async get(taskId: string, userId: string): Promise<TaskRecord | null> {
    // The key is the user's: another user's task id names a key that does not exist.
    return decodeTask(await this.redis.get(this.keys.task(userId, taskId)));
  }

  async list(userId: string, options: ListTasksOptions = {}): Promise<TaskPage> {
    const limit = options.limit ?? DEFAULT_TASK_PAGE;
    const listKey = this.keys.userTasks(userId);
    const tasks: TaskRecord[] = [];
    let bound = listKeyOf(options.cursor);
    for (;;) {
      const want = limit + 1 - tasks.length;
      const members = await this.redis.zrange(
        listKey,
        bound === undefined ? '+' : `(${bound}`,
        '-',
        'BYLEX',
        'REV',
        'LIMIT',
        0,
        want,
      );
      if (members.length === 0) break;
      const ids = members.map((member) => member.slice(member.indexOf(':') + 1));
      const bodies = await this.redis.mget(...ids.map((id) => this.keys.task(userId, id)));
      const gone = members.filter((_, i) => bodies[i] === null);
      if (gone.length > 0) await this.redis.zrem(listKey, ...gone).catch(() => undefined);
      for (const body of bodies) {
        const task = decodeTask(body);
        if (task) tasks.push(task);
      }
      bound = (members.at(-1) as string).split(':')[0];
      if (tasks.length > limit || members.length < want) break;
    }
    const page = tasks.slice(0, limit);
    const last = page.at(-1);
    return tasks.length > limit && last ? { tasks: page, nextCursor: cursorAfter(last) } : { tasks: page };
  }

  async close(): Promise<void> {
    await this.release();
  }
}
