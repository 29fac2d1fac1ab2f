import type { LinkTokens } from '@hitl/auth';
import type { Config } from '@hitl/runtime';
import type { DeliveryLog, SlackStore } from '@hitl/store';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import { SlackInteractions } from './interactions.js';
import { KeyedQueue } from './keyed-queue.js';
import { WebSlackApi } from './slack-api.js';
import { SlackDeliveries } from './slack-deliveries.js';
import { SlackNotifier } from './slack-notifier.js';
import { slackRoutes } from './slack-routes.js';

export interface SlackSetupDeps {
  service: InquiryService;
  directory: DirectoryHolder;
  deliveries: DeliveryLog;
  links: LinkTokens;
  publicUrl: () => string;
  /** The backend's Slack records (shared by every node on Redis). */
  store: SlackStore;
  clock: Clock;
  logger: Logger;
  /** The node's Prometheus registry: `hitl_slack_jobs` is added to it. */
  registry: Registry;
}

export interface SlackParts {
  notifier: SlackNotifier;
  /** Mounted at `/slack`. */
  routes: Hono;
  /** Drops the Slack calls still waiting; those under way finish. */
  close(): void;
}

/** Slack calls at once per node, and waiting (beyond it a call is dropped and recorded failed). */
const QUEUE_LIMITS = { concurrency: 4, maxWaiting: 2000 };
/** The replies only a clicker sees ("not for you", "already answered"): apart, so a post's 429 never delays them. */
const REPLY_LIMITS = { concurrency: 4, maxWaiting: 500 };

/** Slack as a device (`HITL_SLACK_*`): the notifier, `/slack/interactions` and their shared records. */
export function startSlack(config: NonNullable<Config['slack']>, deps: SlackSetupDeps): SlackParts {
  const { clock, logger } = deps;
  const { store } = deps;
  const api = new WebSlackApi({ botToken: config.botToken, apiUrl: config.apiUrl, clock, logger });
  const deliveries = new SlackDeliveries({ log: deps.deliveries, clock, logger });
  const onError = (error: unknown) =>
    logger.warn({ channel: 'slack', err: (error as Error).message }, 'slack job failed');
  const queue = new KeyedQueue(QUEUE_LIMITS, onError);
  const replies = new KeyedQueue(REPLY_LIMITS, onError);
  new Gauge({
    name: 'hitl_slack_jobs',
    help: 'Slack calls this node has queued or under way (posts, updates; each with its retries)',
    registers: [deps.registry],
    collect() {
      this.set(queue.size + replies.size);
    },
  });
  const notifier = new SlackNotifier({
    api,
    store,
    deliveries,
    queue,
    directory: deps.directory,
    find: (id) => deps.service.find(id),
    links: deps.links,
    publicUrl: deps.publicUrl,
    clock,
    logger,
  });
  const interactions = new SlackInteractions({
    service: deps.service,
    directory: deps.directory,
    api,
    deliveries,
    replies,
    logger,
  });
  const routes = slackRoutes({ signingSecret: config.signingSecret, store, interactions, clock, logger });
  logger.info({ apiUrl: config.apiUrl }, 'slack on');
  return {
    notifier,
    routes,
    close: () => {
      queue.close();
      replies.close();
    },
  };
}
