import { randomUUID } from 'node:crypto';
import type { AuditRecord } from '@hitl/protocol';
import type { Logger } from 'pino';
import type { AuditSink, ProxyDecision } from './audit-sink.js';

/** Where the proxy's chain records go: the shared chain itself (Redis), or the node over HTTP. */
export interface ChainAppender {
  append(records: readonly AuditRecord[]): Promise<unknown>;
}

/**
 * The chain record of a proxy decision: a grant that ran (`proxy.approved`), a call passed in `yolo`
 * mode (`proxy.passed`), or any other ending. One id per inquiry and outcome, so a retried append adds
 * it once; a `yolo` pass has no inquiry and gets an id of its own.
 */
export function proxyRecord(decision: ProxyDecision): AuditRecord {
  const key = decision.inquiryId ?? randomUUID();
  return {
    id: `proxy:${key}:${decision.outcome}`,
    type: `proxy.${decision.outcome}`,
    at: decision.at,
    userId: decision.userId,
    server: decision.server,
    tool: decision.tool,
    digest: decision.digest,
    mode: decision.mode,
    reason: decision.reason,
    ...(decision.inquiryId ? { inquiryId: decision.inquiryId } : {}),
    ...(decision.deviceName ? { deviceName: decision.deviceName } : {}),
    ...(decision.idempotencyKey ? { idempotencyKey: decision.idempotencyKey } : {}),
    ...(decision.detail ? { detail: decision.detail } : {}),
  };
}

/** Appends each decision's record to the chain (never throws into the call; failures are logged). */
export function chainAuditSink(chain: ChainAppender, logger: Logger): AuditSink {
  return {
    record: async (decision) => {
      const record = proxyRecord(decision);
      try {
        await chain.append([record]);
      } catch (error) {
        logger.error({ err: error, record: record.id }, 'audit chain record not written');
      }
    },
  };
}

/** Every sink hears each decision. */
export function allSinks(...sinks: AuditSink[]): AuditSink {
  return { record: async (decision) => void (await Promise.all(sinks.map((sink) => sink.record(decision)))) };
}

/** Tries per record before an embedded proxy gives a record up (logged), 1 s apart doubling. */
const POST_TRIES = 5;

/**
 * An embedded proxy's way into the node's chain: `POST /api/audit/records` with an ops token minted
 * from the shared secret, retried while the node is away.
 */
export function nodeChainAppender(
  nodeUrl: string,
  opsToken: () => Promise<string>,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): ChainAppender {
  const url = new URL('/api/audit/records', nodeUrl);
  return {
    async append(records) {
      let lastError: unknown;
      for (let attempt = 0; attempt < POST_TRIES; attempt++) {
        if (attempt > 0) await wait(1000 * 2 ** (attempt - 1));
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${await opsToken()}`, 'content-type': 'application/json' },
            body: JSON.stringify({ records }),
          });
          if (response.ok) return;
          lastError = new Error(
            `the node answered ${response.status}: ${(await response.text()).slice(0, 200)}`,
          );
          if (response.status < 500 && response.status !== 429) break;
        } catch (error) {
          lastError = error;
        }
      }
      throw lastError;
    },
  };
}
