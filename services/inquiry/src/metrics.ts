import type { Inquiry } from '@hitl/protocol';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InquiryMetrics } from './core/ports.js';
import type { PushResult, PushType } from './push/push-notifier.js';

/** The node's Prometheus metrics (one registry per node, so several nodes can share a process in tests). */
export class NodeMetrics implements InquiryMetrics {
  readonly registry = new Registry();
  private readonly createdTotal = new Counter({
    name: 'hitl_inquiries_created_total',
    help: 'Inquiries created on this node',
    registers: [this.registry],
  });
  private readonly resolvedTotal = new Counter({
    name: 'hitl_inquiries_resolved_total',
    help: 'Inquiries this node resolved, by outcome and by who resolved them',
    labelNames: ['status', 'by'] as const,
    registers: [this.registry],
  });
  private readonly answerSeconds = new Histogram({
    name: 'hitl_answer_latency_seconds',
    help: 'Time from question to human answer',
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [this.registry],
  });

  private readonly pushTotal = new Counter({
    name: 'hitl_push_total',
    help: 'Web Push messages this node sent, by type (inquiry, resolved) and result (delivered, gone, failed, retried, dropped, expired)',
    labelNames: ['type', 'result'] as const,
    registers: [this.registry],
  });

  constructor(gauges: {
    heldCalls: () => number;
    pending: () => Promise<number>;
    devices: () => number;
    webhookRetryBytes?: () => number;
  }) {
    new Gauge({
      name: 'hitl_held_calls',
      help: 'MCP calls this node holds open',
      registers: [this.registry],
      collect() {
        this.set(gauges.heldCalls());
      },
    });
    new Gauge({
      name: 'hitl_pending_inquiries',
      help: 'Pending inquiries in the store (all nodes)',
      registers: [this.registry],
      async collect() {
        this.set(await gauges.pending().catch(() => Number.NaN));
      },
    });
    new Gauge({
      name: 'hitl_connected_devices',
      help: 'Device sockets connected to this node',
      registers: [this.registry],
      collect() {
        this.set(gauges.devices());
      },
    });
    new Gauge({
      name: 'hitl_webhook_retry_bytes',
      help: 'Bytes of webhook bodies this node keeps for waiting retries (capped per webhook and per user)',
      registers: [this.registry],
      collect() {
        this.set(gauges.webhookRetryBytes?.() ?? 0);
      },
    });
  }

  created(): void {
    this.createdTotal.inc();
  }

  resolved(inquiry: Inquiry): void {
    this.resolvedTotal.inc({ status: inquiry.status, by: inquiry.resolvedBy?.kind ?? 'unknown' });
    if (inquiry.status === 'answered' && inquiry.resolvedBy?.kind === 'human' && inquiry.resolvedAt) {
      this.answerSeconds.observe((inquiry.resolvedAt - inquiry.createdAt) / 1000);
    }
  }

  pushed(type: PushType, result: PushResult): void {
    this.pushTotal.inc({ type, result });
  }
}
