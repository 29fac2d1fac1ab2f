import { describe, expect, it } from 'vitest';
import { type NewTask, newTaskId, type TaskStore } from '../tasks/tasks.js';
import { eventually, openFixtures } from './fixtures.js';

/** Two handles on one backend (two nodes' views of Redis; one object twice in memory or SQLite). */
export interface TaskFixture {
  writer: TaskStore;
  reader: TaskStore;
  cleanup(): Promise<void>;
}

export type MakeTasks = () => Promise<TaskFixture>;

/** A task of `userId` on a fresh inquiry id, living `lifeMs` from now. */
export function sampleTask(userId: string, lifeMs = 60_000, overrides: Partial<NewTask> = {}): NewTask {
  const now = Date.now();
  return {
    taskId: newTaskId(),
    userId,
    inquiryId: `inq-${newTaskId().slice(0, 8)}`,
    createdAt: now,
    ttlMs: lifeMs,
    pollIntervalMs: 5000,
    expiresAt: now + lifeMs,
    ...overrides,
  };
}

/**
 * The behaviour every `TaskStore` must show, as a vitest suite (real time: expiry is measured in
 * hundreds of ms, because Redis expires keys on its own clock).
 */
export function runTaskContract(name: string, make: MakeTasks): void {
  describe(`TaskStore contract: ${name}`, () => {
    const open = openFixtures(make);

    it('a created task is read back whole, through another handle', async () => {
      const { writer, reader } = await open();
      const task = sampleTask('user-a');
      const created = await writer.create(task);
      expect(created).toMatchObject(task);
      expect(created.listKey).toMatch(/^[0-9A-Z]{26}$/);
      expect(await reader.get(task.taskId, 'user-a')).toEqual(created);
    });

    it("another user's task id and an unknown one are both not found", async () => {
      const { writer, reader } = await open();
      const task = sampleTask('user-a');
      await writer.create(task);
      expect(await reader.get(task.taskId, 'user-b')).toBeNull();
      expect(await reader.get(newTaskId(), 'user-a')).toBeNull();
      expect((await reader.list('user-b')).tasks).toEqual([]);
    });

    it('an expired task is neither found nor listed', async () => {
      const { writer, reader } = await open();
      // A second to live: long enough to be read back first on a loaded machine.
      const short = sampleTask('user-a', 1000);
      const long = sampleTask('user-a', 60_000);
      await writer.create(short);
      await writer.create(long);
      expect(await reader.get(short.taskId, 'user-a')).not.toBeNull();
      await eventually(async () => (await reader.get(short.taskId, 'user-a')) === null);
      const { tasks, nextCursor } = await reader.list('user-a');
      expect(tasks.map((t) => t.taskId)).toEqual([long.taskId]);
      expect(nextCursor).toBeUndefined();
    });

    it("lists only the user's own tasks, newest first, in pages that join up", async () => {
      const { writer, reader } = await open();
      const mine: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        mine.push((await writer.create(sampleTask('user-a'))).taskId);
        await writer.create(sampleTask('user-b'));
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      const sizes: number[] = [];
      do {
        const page = await reader.list('user-a', { limit: 2, ...(cursor ? { cursor } : {}) });
        sizes.push(page.tasks.length);
        seen.push(...page.tasks.map((t) => t.taskId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(sizes).toEqual([2, 2, 1]);
      expect(seen).toEqual([...mine].reverse());
    });

    it('a page that ends exactly at the last task has no next cursor', async () => {
      const { writer, reader } = await open();
      await writer.create(sampleTask('user-c'));
      await writer.create(sampleTask('user-c'));
      const page = await reader.list('user-c', { limit: 2 });
      expect(page.tasks).toHaveLength(2);
      expect(page.nextCursor).toBeUndefined();
    });

    it('a page is full even when expired tasks sit between live ones', async () => {
      const { writer, reader } = await open();
      const live: string[] = [];
      const expiring: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        live.push((await writer.create(sampleTask('user-d'))).taskId);
        expiring.push((await writer.create(sampleTask('user-d', 200))).taskId);
      }
      for (const taskId of expiring)
        await eventually(async () => (await reader.get(taskId, 'user-d')) === null);
      const first = await reader.list('user-d', { limit: 2 });
      expect(first.tasks.map((t) => t.taskId)).toEqual([live[2], live[1]]);
      const second = await reader.list('user-d', { limit: 2, cursor: first.nextCursor as string });
      expect(second.tasks.map((t) => t.taskId)).toEqual([live[0]]);
      expect(second.nextCursor).toBeUndefined();
    });
  });
}
