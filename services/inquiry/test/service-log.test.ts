import { loadConfig } from '@hitl/runtime';
import { MemoryInquiryStore } from '@hitl/store';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { InquiryService } from '../src/core/inquiry-service.js';
import { systemClock } from '../src/core/ports.js';

/** A service whose log lines land in `lines` (JSON), at `level`. */
function serviceLogging(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = loadConfig({ HITL_SECRET: 'x'.repeat(32), LOG_LEVEL: level, HITL_STORE: 'memory' });
  const service = new InquiryService({
    store: new MemoryInquiryStore(),
    clock: systemClock,
    logger,
    events: { created: () => undefined, resolved: () => undefined },
    metrics: { created: () => undefined, resolved: () => undefined },
    config: { ...config, maxPendingPerUser: 10 },
  });
  return { service, lines };
}

describe("the service's log lines of an inquiry", () => {
  it('are written at info with the inquiry and user ids, and not at all above info', async () => {
    for (const level of ['info', 'warn']) {
      const { service, lines } = serviceLogging(level);
      const { inquiry } = await service.ask(
        { userId: 'alice', tokenSubject: 'agent' },
        { question: 'Size?' },
      );
      await service.settle(inquiry.inquiryId, 'alice', {
        type: 'answer',
        response: 'M',
        device: { deviceId: 'd1' },
      });
      const ids = { inquiryId: inquiry.inquiryId, userId: 'alice' };
      expect(lines).toEqual(
        level === 'info'
          ? [
              expect.objectContaining({ ...ids, kind: 'question', msg: 'inquiry created' }),
              expect.objectContaining({ ...ids, status: 'answered', by: 'human', msg: 'inquiry resolved' }),
            ]
          : [],
      );
    }
  });
});
