import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * MCP tasks: a task is a handle on one inquiry, owned by one user. The store keeps
 * only the handle; the task's status is derived from its inquiry, so every node answers for every
 * task, also after the node that created it died.
 */
export interface NewTask {
  /** Unguessable ({@link newTaskId}). */
  taskId: string;
  userId: string;
  inquiryId: string;
  /** Epoch ms. */
  createdAt: number;
  /** The lifetime the client was told (the inquiry's answer window), in ms. */
  ttlMs: number;
  /** How often the client is asked to poll, in ms. */
  pollIntervalMs: number;
  /** Epoch ms from which the task is gone (not found, not listed). */
  expiresAt: number;
}

/** A stored task: the new task plus the key it is listed by. */
export interface TaskRecord extends NewTask {
  /** Sorts in creation order (a ULID); lists page newest first on it. */
  listKey: string;
}

export interface TaskPage {
  tasks: TaskRecord[];
  /** Present when more tasks follow; opaque to callers. */
  nextCursor?: string;
}

export interface ListTasksOptions {
  cursor?: string;
  /** Page size; {@link DEFAULT_TASK_PAGE} when absent. */
  limit?: number;
}

export const DEFAULT_TASK_PAGE = 50;

/** Where task handles live: shared by every node (Redis), or the node's state file, or memory. */
export interface TaskStore {
  create(task: NewTask): Promise<TaskRecord>;
  /** The task when it exists, has not expired and belongs to `userId`; null otherwise (alike). */
  get(taskId: string, userId: string): Promise<TaskRecord | null>;
  /** The user's live tasks, newest first, a page at a time. */
  list(userId: string, options?: ListTasksOptions): Promise<TaskPage>;
  close(): Promise<void>;
}

/** 24 random bytes (192 bits), base64url: a task id nobody can guess or derive from another. */
export function newTaskId(): string {
  return randomBytes(24).toString('base64url');
}

const nextUlid = monotonicFactory();

/** A new task's record, with its list key. */
export function taskRecord(task: NewTask): TaskRecord {
  return { ...task, listKey: nextUlid(task.createdAt) };
}

/** The cursor after `record` (opaque to clients: base64url of the list key). */
export function cursorAfter(record: TaskRecord): string {
  return Buffer.from(record.listKey).toString('base64url');
}

/** The list key a cursor stands for; undefined for none. */
export function listKeyOf(cursor: string | undefined): string | undefined {
  return cursor === undefined ? undefined : Buffer.from(cursor, 'base64url').toString();
}

/** A stored task from its JSON; null for anything that is not one. */
export function decodeTask(json: string | null | undefined): TaskRecord | null {
  if (!json) return null;
  const value = JSON.parse(json) as Partial<TaskRecord>;
  const fields = ['taskId', 'userId', 'inquiryId', 'listKey'] as const;
  const numbers = ['createdAt', 'ttlMs', 'pollIntervalMs', 'expiresAt'] as const;
  if (!fields.every((f) => typeof value[f] === 'string')) return null;
  if (!numbers.every((f) => typeof value[f] === 'number')) return null;
  return value as TaskRecord;
}
