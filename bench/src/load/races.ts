import type { Inquiry, Resolution } from '@hitl/protocol';
import { type InquiryStore, newInquiryId, RedisInquiryStore, type ResolveResult } from '@hitl/store';
import { Redis } from 'ioredis';
import { encodeHist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { Faults, now, pool, sleep, until, within } from './util.js';

export interface RacesParams {
  redisUrl: string;
  /** Key prefix of this process's stores (its own resolution channel too). */
  prefix: string;
  count: number;
  concurrency: number;
  /** Give each store its own ioredis client with auto-pipelining on (an experiment; off by default). */
  autoPipelining?: boolean;
}

export interface RacesResult {
  /** Racers fired → every waiter of the inquiry released. */
  hist: string;
  inquiries: number;
  wins: Record<string, number>;
  waitersReleased: number;
  elapsedMs: number;
  faults: Record<string, number>;
  samples: string[];
}

interface Racer {
  kind: string;
  store: number;
  resolution: Resolution;
}

const STORES = 3;

function racers(at: number): Racer[] {
  const answers = [0, 1, 2].map((k) => ({
    kind: `answer${k}`,
    store: k,
    resolution: {
      status: 'answered',
      answer: `a${k}`,
      resolvedBy: { kind: 'human', deviceId: `d${k}` },
      resolvedAt: at,
    } satisfies Resolution,
  }));
  const pick = () => Math.floor(Math.random() * STORES);
  const timeout: Racer = {
    kind: 'timeout',
    store: pick(),
    resolution: { status: 'timed_out', resolvedBy: { kind: 'service-timer' }, resolvedAt: at },
  };
  const cancel: Racer = {
    kind: 'cancel',
    store: pick(),
    resolution: { status: 'cancelled', resolvedBy: { kind: 'agent' }, resolvedAt: at },
  };
  const all = [...answers, timeout, cancel];
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [all[i], all[j]] = [all[j] as Racer, all[i] as Racer];
  }
  return all;
}

const sameEnding = (a: Inquiry, b: Inquiry) =>
  a.status === b.status &&
  a.answer === b.answer &&
  a.resolvedBy?.kind === b.resolvedBy?.kind &&
  a.resolvedBy?.deviceId === b.resolvedBy?.deviceId;

/**
 * Store level, on purpose (no HTTP): three `RedisInquiryStore`s on their own connections act as
 * three nodes. Each inquiry gets two waiters (the holding node and a long-poll elsewhere), then
 * 3 answers, the service timeout and a cancel fire in random order on random nodes in one tick.
 */
export async function racesLoad(p: RacesParams, _ctx: TaskContext): Promise<RacesResult> {
  const faults = new Faults();
  const hist = newHist();
  const clients = p.autoPipelining
    ? Array.from({ length: STORES }, () => new Redis(p.redisUrl, { enableAutoPipelining: true }))
    : [];
  const stores: InquiryStore[] = Array.from(
    { length: STORES },
    (_, k) =>
      new RedisInquiryStore({ redis: clients[k] ?? p.redisUrl, prefix: p.prefix, retentionMs: 60_000 }),
  );
  const events = stores.map(() => new Map<string, number>());
  /** What each store must hear: the inquiries it waited on or won (a node hears only those). */
  const expected = stores.map(() => new Set<string>());
  for (const [k, store] of stores.entries()) {
    const seen = events[k] as Map<string, number>;
    store.onResolved((inquiry) => {
      seen.set(inquiry.inquiryId, (seen.get(inquiry.inquiryId) ?? 0) + 1);
    });
  }
  await Promise.all(stores.map((s) => s.ping(5000)));
  // The stores subscribe as they open; let the subscriptions settle before the first race.
  await sleep(200);
  const wins: Record<string, number> = {};
  const ids: string[] = [];
  let released = 0;
  const started = now();
  await pool(p.count, p.concurrency, async (i) => {
    const t = Date.now();
    const inquiryId = newInquiryId();
    const created = await stores[0]?.create({
      inquiryId,
      userId: `race-u${i % 100}`,
      asker: { tokenSubject: 'race-agent' },
      question: `race ${i}`,
      format: 'text',
      kind: 'question',
      critical: false,
      createdAt: t,
      deadlines: { deviceAt: t + 30_000, serviceAt: t + 50_000, clientAt: t + 90_000 },
    });
    if (created?.kind !== 'ok' || !created.created) return faults.add('create', inquiryId);
    ids.push(inquiryId);
    const holder = i % STORES;
    const waits = [holder, (holder + 1) % STORES].map((k) =>
      (stores[k] as InquiryStore).waitForResolution(inquiryId, { deadline: t + 30_000 }),
    );
    const t0 = now();
    const field = racers(Date.now());
    const outcomes = await Promise.all(
      field.map((r) => (stores[r.store] as InquiryStore).resolve(inquiryId, r.resolution)),
    );
    for (const k of [holder, (holder + 1) % STORES]) expected[k]?.add(inquiryId);
    const winner = outcomes.findIndex((o) => o.kind === 'won');
    if (winner >= 0) expected[field[winner]?.store ?? 0]?.add(inquiryId);
    const woken = await within(Promise.all(waits), 30_000, `waiters of ${inquiryId}`);
    recordMs(hist, now() - t0);
    released += woken.filter((w) => w && w.status !== 'pending').length;
    // The record in Redis, read through a third node, agrees with everyone.
    const stored = await (stores[(holder + 2) % STORES] as InquiryStore).get(inquiryId);
    judge(inquiryId, field, outcomes, [...woken, stored], wins, faults);
  });
  const elapsedMs = now() - started;
  // Each store must hear each resolution it waited on or won exactly once, and no other; late
  // duplicates get a moment to show up.
  const missing = () => events.map((m, k) => [...(expected[k] ?? [])].filter((id) => !m.has(id)).length);
  await until(() => missing().every((n) => n === 0), 20_000, 'resolution events').catch(() =>
    faults.add('event_missing', missing().join('/')),
  );
  await sleep(500);
  for (const [k, seen] of events.entries())
    for (const [id, n] of seen) {
      if (n !== 1) faults.add('event_count', `${id} heard ${n} times`);
      if (!expected[k]?.has(id)) faults.add('event_unexpected', `store ${k} heard ${id}`);
    }
  await Promise.all(stores.map((s) => s.close()));
  for (const client of clients) client.disconnect();
  return {
    hist: encodeHist(hist),
    inquiries: ids.length,
    wins,
    waitersReleased: released,
    elapsedMs,
    faults: faults.counts,
    samples: faults.samples,
  };
}

/** Exactly one winner; every loser and every waiter sees the winner's ending. */
function judge(
  id: string,
  field: Racer[],
  outcomes: ResolveResult[],
  woken: (Inquiry | null)[],
  wins: Record<string, number>,
  faults: Faults,
): void {
  const winners = outcomes.flatMap((o, i) => (o.kind === 'won' ? [{ o, racer: field[i] as Racer }] : []));
  if (winners.length !== 1) {
    faults.add('winners', `${id}: ${winners.length} winners`);
    return;
  }
  const { o, racer } = winners[0] as { o: { inquiry: Inquiry }; racer: Racer };
  wins[racer.kind.startsWith('answer') ? 'answer' : racer.kind] =
    (wins[racer.kind.startsWith('answer') ? 'answer' : racer.kind] ?? 0) + 1;
  if (o.inquiry.status !== racer.resolution.status) faults.add('winner_state', id);
  for (const other of outcomes) {
    if (other.kind === 'not_found') faults.add('not_found', id);
    else if (!sameEnding(other.inquiry, o.inquiry)) faults.add('loser_sees_other', id);
  }
  for (const inquiry of woken) {
    if (!inquiry || inquiry.status === 'pending') faults.add('waiter_not_released', id);
    else if (!sameEnding(inquiry, o.inquiry)) faults.add('waiter_wrong', id);
  }
}
