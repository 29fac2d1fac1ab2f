import type { AuditRecord, AuditRecordsPage, ChainEntry, SignedCheckpoint } from '@hitl/protocol';
import { type AuditChainStore, type AuditKey, signCheckpoint } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';

export interface AuditorDeps {
  chain: AuditChainStore;
  key: AuditKey;
  clock: Clock;
  logger: Logger;
  /** How often the outbox is drained of what no appender moved (a crash, a failed append). */
  drainEveryMs?: number;
}

/** A failed append is rare and its record waits safely in the outbox; an idle node need not look often. */
const DEFAULT_DRAIN_MS = 30_000;

/**
 * The node's side of the audit chain: moves each decision's record into the chain after the store
 * step that wrote it to the outbox, drains the outbox at start and then periodically (what a dead
 * node decided but never appended), and signs checkpoints of the head.
 *
 * `appendAudit` is the entry point for a decision made outside an inquiry's store step (a proxy's
 * grant or run, a standing approval's use): the record is in the chain, once by its id, before it
 * returns.
 */
export class Auditor {
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<unknown> | undefined;

  constructor(private readonly deps: AuditorDeps) {}

  /**
   * Appends records made outside a store step. Ids are the caller's: one decision, one id (a retry
   * with the same id adds nothing).
   * @example
   * await auditor.appendAudit({ id: `standing:${use.id}:${n}`, type: 'standing.use', at: now, ... });
   */
  appendAudit(records: AuditRecord | readonly AuditRecord[]): Promise<ChainEntry[]> {
    return this.deps.chain.append(Array.isArray(records) ? records : [records as AuditRecord]);
  }

  /** After a store step that wrote `records` to the outbox: into the chain. A failure leaves them to the drain. */
  async commit(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.deps.chain.append(records);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, records: records.map((r) => r.id) },
        'audit append failed; the outbox keeps it',
      );
    }
  }

  /** The head now, signed. */
  async checkpoint(): Promise<SignedCheckpoint> {
    const head = await this.deps.chain.head();
    return signCheckpoint(this.deps.key, {
      seq: head.seq,
      hash: head.hash,
      at: Math.floor(this.deps.clock.now()),
    });
  }

  /** Entries after `after`, oldest first; `nextCursor` names the next page's `after` while there is one. */
  async page(after: number, limit: number): Promise<AuditRecordsPage> {
    const read = await this.deps.chain.read(after, limit + 1);
    const items = read.slice(0, limit);
    const last = items.at(-1);
    return { items, nextCursor: read.length > limit && last ? String(last.seq) : null };
  }

  /** Drains once now (what a previous process left), then every `drainEveryMs`. */
  async start(): Promise<void> {
    await this.drain(0);
    const every = this.deps.drainEveryMs ?? DEFAULT_DRAIN_MS;
    this.timer = setInterval(() => void this.drain(), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.draining;
  }

  private async drain(graceMs?: number): Promise<void> {
    if (this.draining) return;
    const run = this.deps.chain
      .drainOutbox(graceMs)
      .then((count) => {
        if (count > 0) this.deps.logger.info({ count }, 'audit records appended from the outbox');
      })
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'audit outbox drain failed'))
      .finally(() => {
        this.draining = undefined;
      });
    this.draining = run;
    await run;
  }
}
