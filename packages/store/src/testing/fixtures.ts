import type { Resolution } from '@hitl/protocol';
import { afterEach, vi } from 'vitest';
import { newInquiryId } from '../ids.js';
import type { InquiryStore, NewInquiry } from '../store.js';

/** What a contract run gets from the store under test. */
export interface StoreFixture {
  /** A fresh store, sharing no data with any other fixture. */
  store: InquiryStore;
  /**
   * Another store instance on its own connection over the same data (a second node). Absent for a
   * single-node store; the contract then uses `store` where it would use a peer.
   */
  peer?: () => Promise<InquiryStore>;
  /**
   * How many instances the inquiry lists as waiting on it, for a store that lists them (Redis: a
   * wait is set up once its node is listed); absent where a wait is set up as it is called.
   */
  listedWaiters?: (inquiryId: string) => Promise<number>;
  /** Moves the store's clock forward (a fake clock); absent when the store runs on real time. */
  advanceClock?: (ms: number) => void;
  /** Closes the store and every peer, and deletes what they wrote. */
  cleanup(): Promise<void>;
}

/** Options the contract asks a fresh store for. */
export interface MakeStoreOptions {
  retentionMs?: number;
}

/** Makes a fresh, isolated store for one test. */
export type MakeStore = (options?: MakeStoreOptions) => Promise<StoreFixture>;

/** A valid new inquiry for `user-a`, due in 50 s, with the overrides applied. */
export function sampleInquiry(overrides: Partial<NewInquiry> = {}): NewInquiry {
  const now = Date.now();
  return {
    inquiryId: newInquiryId(),
    userId: 'user-a',
    asker: { tokenSubject: 'agent-1', name: 'contract agent' },
    question: 'Which size?',
    format: 'text',
    kind: 'question',
    critical: false,
    options: ['S', 'M', 'L'],
    context: { basket: ['shirt'] },
    createdAt: now,
    deadlines: { deviceAt: now + 30_000, serviceAt: now + 50_000, clientAt: now + 90_000 },
    ...overrides,
  };
}

/** A human's answer from a named device. */
export function answered(answer: string, deviceId = 'device-1'): Resolution {
  return { status: 'answered', answer, resolvedBy: { kind: 'human', deviceId }, resolvedAt: Date.now() };
}

export function timedOut(): Resolution {
  return { status: 'timed_out', resolvedBy: { kind: 'service-timer' }, resolvedAt: Date.now() };
}

/**
 * The tests' one fixed sleep: only where time itself is under test (a tier, a TTL, "nothing happens
 * for a while"), with a comment saying so; anything else waits on its event (`eventually`).
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The tests' one wait on a condition: `vi.waitFor` on `check` coming true (or, for an async check
 * made of `expect`s, returning without throwing), every 50 ms (or `intervalMs`), failing after `timeoutMs`
 * with the last assertion's message. Every test package uses this one (through `@hitl/store/testing`).
 *
 * @example
 * await eventually(async () => (await store.countPending('user-a')) === 0);
 * await eventually(async () => expect(await status()).toMatchObject({ status: 'done' }));
 */
export async function eventually(
  check: (() => boolean | Promise<boolean>) | (() => Promise<void>),
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<void> {
  await vi.waitFor(
    async () => {
      if ((await check()) === false) throw new Error(`condition not met within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}

/** Creates an inquiry that must be new, and returns it. */
export async function createNew(store: InquiryStore, overrides: Partial<NewInquiry> = {}) {
  const result = await store.create(sampleInquiry(overrides));
  if (result.kind !== 'ok' || !result.created)
    throw new Error(`expected a new inquiry, got ${JSON.stringify(result)}`);
  return result.inquiry;
}

/**
 * Resolves once `count` instances are set up to wait on the inquiry (at once for a store whose
 * waits are set up as they are called), so what comes next reaches a waiter, not a wait's first read.
 */
export async function waitersSetUp(fixture: StoreFixture, inquiryId: string, count: number): Promise<void> {
  const listed = fixture.listedWaiters;
  if (listed) await eventually(async () => (await listed(inquiryId)) >= count);
}

/** The peer when there is one, else the store itself. */
export async function peerOf(fixture: StoreFixture): Promise<InquiryStore> {
  return fixture.peer ? fixture.peer() : fixture.store;
}

/**
 * Opens one suite's fixtures as its tests ask (`open()`), and cleans up every one after each test.
 * Call it inside the suite's `describe`.
 */
export function openFixtures<F extends { cleanup(): Promise<void> }>(
  make: () => Promise<F>,
): () => Promise<F> {
  const opened: F[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()));
  });
  return async () => {
    const fixture = await make();
    opened.push(fixture);
    return fixture;
  };
}
