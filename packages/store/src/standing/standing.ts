import { randomBytes } from 'node:crypto';
import { matchesArguments } from '@hitl/protocol';

/**
 * Standing approvals: a person approved a call "and allow the same for N minutes". While one is
 * live, a call by the same asker to the same server and tool whose arguments hold every `match`
 * value exactly runs without asking, and each such use is counted. Ending one (or its `until`
 * passing) stops it at once on every node: each use reads the store, nothing is cached.
 */
export interface NewStandingApproval {
  /** Unguessable ({@link newStandingId}). */
  id: string;
  /** The asker it covers: the agent token's user whose calls run without asking. */
  userId: string;
  server: string;
  tool: string;
  /** Argument names and the exact values a covered call must have; absent: any arguments. */
  match?: Record<string, unknown>;
  /** Epoch ms: no use at or after it. */
  until: number;
  /** The person who approved it. */
  createdBy: string;
  createdAt: number;
  /** The approval it came from. */
  inquiryId: string;
}

export interface StandingApproval extends NewStandingApproval {
  /** Calls it covered so far. */
  uses: number;
}

/** What a covered call names. */
export interface StandingCall {
  userId: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** Which standing approvals a listing returns. */
export type StandingFilter =
  /** Those covering `userId` or made by `userId`. */
  | { userId: string }
  /** Every live one (ops). */
  | { all: true };

/** Where standing approvals live: the node's store (memory, its SQLite file, or Redis shared by every node). */
export interface StandingStore {
  create(approval: NewStandingApproval): Promise<StandingApproval>;
  /**
   * Finds a live standing approval that covers `call` at `now` and counts one use of it, in one
   * step against an end: an approval ended (or expired) before the count is never used. Null: none.
   */
  use(call: StandingCall, now: number): Promise<StandingApproval | null>;
  /** A live one by id, or null. */
  get(id: string, now: number): Promise<StandingApproval | null>;
  /** Live ones, soonest to end first. */
  list(filter: StandingFilter, now: number): Promise<StandingApproval[]>;
  /** Live ones covering `userId` (what the per-user cap counts). */
  countFor(userId: string, now: number): Promise<number>;
  /** Ends one at once; returns it as it was (with its uses), or null when it was not live. */
  end(id: string, now: number): Promise<StandingApproval | null>;
  close(): Promise<void>;
}

/** 18 random bytes, base64url, with a prefix that says what it is. */
export function newStandingId(): string {
  return `sa_${randomBytes(18).toString('base64url')}`;
}

/** True when `approval` is live at `now` and covers `call` (same asker, server, tool; every match value). */
export function covers(approval: NewStandingApproval, call: StandingCall, now: number): boolean {
  return (
    approval.until > now &&
    approval.userId === call.userId &&
    approval.server === call.server &&
    approval.tool === call.tool &&
    matchesArguments(approval.match, call.arguments)
  );
}

/** True when a listing with `filter` shows `approval`. */
export function listedFor(approval: NewStandingApproval, filter: StandingFilter): boolean {
  return 'all' in filter || approval.userId === filter.userId || approval.createdBy === filter.userId;
}

/** Soonest to end first, then by id (a stable order for every store). */
export function bySoonest(a: StandingApproval, b: StandingApproval): number {
  return a.until - b.until || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A stored approval from its JSON and its count; null for anything that is not one. */
export function decodeStanding(json: string | null | undefined, uses: number): StandingApproval | null {
  if (!json) return null;
  const value = JSON.parse(json) as Partial<NewStandingApproval>;
  const strings = ['id', 'userId', 'server', 'tool', 'createdBy', 'inquiryId'] as const;
  if (!strings.every((f) => typeof value[f] === 'string')) return null;
  if (typeof value.until !== 'number' || typeof value.createdAt !== 'number') return null;
  return { ...(value as NewStandingApproval), uses };
}

/** The approval's own fields only (what is stored as its JSON). */
export function standingBody(approval: NewStandingApproval): NewStandingApproval {
  const { id, userId, server, tool, match, until, createdBy, createdAt, inquiryId } = approval;
  return { id, userId, server, tool, ...(match ? { match } : {}), until, createdBy, createdAt, inquiryId };
}
