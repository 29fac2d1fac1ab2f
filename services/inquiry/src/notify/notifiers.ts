import type { LinkTokens } from '@hitl/auth';
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import { EmailNotifier } from './email-notifier.js';

export interface NotifierDeps {
  config: Pick<Config, 'email' | 'publicUrl'>;
  directory: DirectoryHolder;
  links: LinkTokens;
  service: InquiryService;
  clock: Clock;
  logger: Logger;
  /** The node's own URL, once it listens: the default for answer links. */
  nodeUrl: () => string;
}

/** The channels that reach people with no page open (DESIGN §6.3), as event listeners of this node. */
export function startNotifiers(deps: NotifierDeps): { listeners: InquiryEvents[]; stop(): void } {
  const { config, directory, links, service, clock, logger } = deps;
  const listeners: (InquiryEvents & { stop(): void })[] = [];
  if (config.email) {
    listeners.push(
      new EmailNotifier({
        transport: createTransport(config.email.smtpUrl),
        from: config.email.from,
        directory,
        links,
        publicUrl: () => config.publicUrl ?? deps.nodeUrl(),
        stillPending: async (id) => (await service.find(id))?.status === 'pending',
        clock,
        logger,
      }),
    );
  }
  return {
    listeners,
    stop: () => {
      for (const listener of listeners) listener.stop();
    },
  };
}
