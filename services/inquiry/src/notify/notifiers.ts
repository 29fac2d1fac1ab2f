import type { LinkTokens } from '@hitl/auth';
import type { Config } from '@hitl/runtime';
import type { DeliveryLog } from '@hitl/store';
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import { EmailNotifier } from './email-notifier.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

export interface NotifierDeps {
  config: Pick<Config, 'email' | 'publicUrl' | 'webhooks'>;
  /** Where webhook deliveries are kept for ops. */
  deliveries: DeliveryLog;
  directory: DirectoryHolder;
  links: LinkTokens;
  service: InquiryService;
  clock: Clock;
  logger: Logger;
  /** The node's own URL, once it listens: the default for answer links. */
  nodeUrl: () => string;
}

/** The channels that reach people with no page open, as event listeners of this node. */
export function startNotifiers(deps: NotifierDeps): {
  listeners: InquiryEvents[];
  /** Bytes of webhook bodies kept for waiting retries. */
  webhookRetryBytes(): number;
  stop(): void;
} {
  const { config, directory, links, service, clock, logger } = deps;
  const publicUrl = () => config.publicUrl ?? deps.nodeUrl();
  // Webhooks listen always: a reloaded directory may add some.
  const webhooks = new WebhookDispatcher({
    directory,
    log: deps.deliveries,
    links,
    publicUrl,
    allowHosts: config.webhooks.allowHosts,
    backoffMs: config.webhooks.backoffMs,
    retryCaps: config.webhooks.retryCaps,
    clock,
    logger,
  });
  const listeners: (InquiryEvents & { stop(): void })[] = [webhooks];
  if (config.email) {
    listeners.push(
      new EmailNotifier({
        transport: createTransport(config.email.smtpUrl),
        from: config.email.from,
        directory,
        links,
        log: deps.deliveries,
        publicUrl,
        stillPending: async (id) => (await service.find(id))?.status === 'pending',
        clock,
        logger,
      }),
    );
  }
  return {
    listeners,
    webhookRetryBytes: () => webhooks.retryBytes,
    stop: () => {
      for (const listener of listeners) listener.stop();
    },
  };
}
