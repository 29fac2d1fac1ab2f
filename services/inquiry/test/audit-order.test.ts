import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalDecider } from '@hitl/decisions';
import type { DecisionRecord } from '@hitl/protocol';
import { loadConfig } from '@hitl/runtime';
import {
  type NewDecisionRecord,
  openStateDatabase,
  SqliteDecisionLog,
  SqliteInquiryStore,
} from '@hitl/store';
import { eventually, sleep } from '@hitl/store/testing';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InquiryService } from '../src/core/inquiry-service.js';
import { systemClock } from '../src/core/ports.js';

/** The node's SQLite audit log, whose appends wait until the test lets them through. */
class GatedLog extends SqliteDecisionLog {
  private release: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  started = 0;

  open(): void {
    this.release();
  }

  override async append(record: NewDecisionRecord): Promise<DecisionRecord> {
    this.started++;
    await this.gate;
    return super.append(record);
  }
}

describe('the audit record of an answer', () => {
  let dir = '';
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['settle', 'read first'],
    ['answerRelayed', 'relayed to the device, no read first'],
  ] as const)(
    'is written after the waiting call resumes, and before the answer is acknowledged (%s: %s)',
    async (path, _how) => {
      dir = await mkdtemp(join(tmpdir(), 'hitl-audit-order-'));
      const database = openStateDatabase(join(dir, 'hitl.db'));
      const store = new SqliteInquiryStore({ database });
      const config = loadConfig({ HITL_SECRET: 'x'.repeat(32), HITL_STATE_DIR: dir, LOG_LEVEL: 'silent' });
      const logger = pino({ level: 'silent' });
      const log = new GatedLog({ db: database.db, max: 100 });
      const service = new InquiryService({
        store,
        clock: systemClock,
        logger,
        events: { created: () => undefined, resolved: () => undefined },
        metrics: { created: () => undefined, resolved: () => undefined },
        config: { ...config, maxPendingPerUser: 10 },
        decisions: {
          decider: createLocalDecider({ clock: systemClock, logger }),
          log,
          policy: config.policy,
        },
      });
      const { inquiry } = await service.ask(
        { userId: 'alice', tokenSubject: 'agent' },
        { question: 'Size?' },
      );
      const waiting = service.wait(inquiry.inquiryId, undefined, Date.now() + 10_000);
      let acknowledged = false;
      const ending = { type: 'answer', response: 'M', device: { deviceId: 'd1' } } as const;
      const relayed = { kind: inquiry.kind, serviceAt: inquiry.deadlines.serviceAt };
      const settled = (
        path === 'settle'
          ? service.settle(inquiry.inquiryId, 'alice', ending)
          : service.answerRelayed(inquiry.inquiryId, 'alice', ending, relayed)
      ).then((result) => {
        acknowledged = true;
        return result;
      });

      // The held call has its answer while the record is still being written...
      expect((await waiting)?.status).toBe('answered');
      await eventually(() => log.started === 1);
      // time itself is under test: with the record not written yet, the answer stays unacknowledged.
      await sleep(50);
      // ...and the answer is not acknowledged until the record is in the log.
      expect(acknowledged).toBe(false);
      expect((await log.list({ limit: 10 })).items).toEqual([]);
      log.open();
      expect((await settled).kind).toBe('won');
      expect((await log.list({ limit: 10 })).items).toMatchObject([{ userId: 'alice', output: 'M' }]);
      await store.close();
      database.close();
    },
  );
});
