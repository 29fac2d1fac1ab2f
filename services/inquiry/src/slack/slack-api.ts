import { AsyncLocalStorage } from 'node:async_hooks';
import type { ModalView } from '@slack/types';
import {
  ErrorCode,
  type FetchFunction,
  LogLevel,
  type RetryOptions,
  type Logger as SlackLogger,
  WebClient,
} from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Clock, sleep } from '../core/ports.js';
import type { SlackMessageContent } from './message-blocks.js';

/*
 * The one edge that talks to Slack's Web API, through the official SDK (`@slack/web-api`). Every HTTP
 * attempt is reported as it happens (for the delivery log), to the call that made it. Network errors and HTTP errors are
 * retried by the SDK (`RETRY`); a 429 is retried here after its `Retry-After`, so the wait is on our
 * clock and bounded.
 */

/** One HTTP attempt: its status, or the error before any; or Slack's `error` of an `ok: false` reply. */
export interface SlackAttempt {
  at: number;
  status?: number;
  error?: string;
}
export type AttemptSink = (attempt: SlackAttempt) => void;

/** What the channel needs of Slack. */
export interface SlackApi {
  /** The DM channel with a member (`conversations.open`). */
  openDm(memberId: string, onAttempt: AttemptSink): Promise<string>;
  postMessage(
    channel: string,
    content: SlackMessageContent,
    onAttempt: AttemptSink,
  ): Promise<{ channel: string; ts: string }>;
  updateMessage(
    channel: string,
    ts: string,
    content: SlackMessageContent,
    onAttempt: AttemptSink,
  ): Promise<void>;
  /** A modal, within the 3 s a `trigger_id` lives (never retried). */
  openView(triggerId: string, view: ModalView, onAttempt: AttemptSink): Promise<void>;
  /** A message only `memberId` sees, in `channel`. */
  postEphemeral(channel: string, memberId: string, text: string, onAttempt: AttemptSink): Promise<void>;
}

export interface SlackApiOptions {
  botToken: string;
  apiUrl: string;
  clock: Clock;
  logger: Logger;
  /** 429s retried per call (after `Retry-After`); default 5. */
  rateLimitRetries?: number;
  /** The longest `Retry-After` waited for; a longer one fails the call. Default 60 s. */
  maxRetryAfterMs?: number;
}

/** Network and HTTP errors: five more tries, 0.5 s doubling (with jitter) up to 30 s. */
const RETRY: RetryOptions = { retries: 5, factor: 2, minTimeout: 500, maxTimeout: 30_000, randomize: true };
const NO_RETRY: RetryOptions = { retries: 0 };
/** One HTTP request's time limit. */
const REQUEST_TIMEOUT_MS = 10_000;
/** The SDK's own request queue: never the limit (the node's queue is), so requests start at once. */
const MAX_REQUESTS = 10_000;

/** DM channels kept per node (a few hundred KB at most). */
const DM_CHANNELS_KEPT = 10_000;

const PostedSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
const OpenedSchema = z.object({ channel: z.object({ id: z.string().min(1) }) });

/**
 * The official client, shared by every call (building a `WebClient` costs ~0.4 ms of CPU: it builds
 * every method family of the API). Each HTTP attempt reaches its own call's sink through an
 * `AsyncLocalStorage`: with `rejectRateLimitedCalls` the SDK never pauses its request queue, and its
 * concurrency (`maxRequestConcurrency`) is far above what the node sends at once, so every request starts
 * in the context of the call that made it, and its retries (timers) keep that context.
 */
export class WebSlackApi implements SlackApi {
  private readonly sinks = new AsyncLocalStorage<AttemptSink>();
  private readonly retrying: WebClient;
  private readonly once: WebClient;
  /** Member id → DM channel id, in the order first opened. */
  private readonly dmChannels = new Map<string, string>();

  constructor(private readonly options: SlackApiOptions) {
    const { clock } = options;
    const recorded: FetchFunction = async (url, init) => {
      const onAttempt = this.sinks.getStore();
      const at = clock.now();
      try {
        const response = await fetch(url, init);
        onAttempt?.({ at, status: response.status });
        return response;
      } catch (error) {
        onAttempt?.({ at, error: (error as Error).message });
        throw error;
      }
    };
    const client = (retryConfig: RetryOptions) =>
      new WebClient(options.botToken, {
        slackApiUrl: options.apiUrl,
        fetch: recorded,
        retryConfig,
        rejectRateLimitedCalls: true,
        maxRequestConcurrency: MAX_REQUESTS,
        timeout: REQUEST_TIMEOUT_MS,
        logger: quietLogger(options.logger),
      });
    this.retrying = client(RETRY);
    this.once = client(NO_RETRY);
  }

  /**
   * The DM channel with one member. Slack returns the same channel for a member every time, so each
   * is asked once per node and kept (the oldest forgotten past {@link DM_CHANNELS_KEPT}): a question
   * in a DM then costs one Web API call, not two.
   */
  async openDm(memberId: string, onAttempt: AttemptSink): Promise<string> {
    const known = this.dmChannels.get(memberId);
    if (known !== undefined) return known;
    const reply = await this.call(onAttempt, () => this.retrying.conversations.open({ users: memberId }));
    const channel = OpenedSchema.parse(reply).channel.id;
    if (this.dmChannels.size >= DM_CHANNELS_KEPT) {
      const oldest = this.dmChannels.keys().next().value;
      if (oldest !== undefined) this.dmChannels.delete(oldest);
    }
    this.dmChannels.set(memberId, channel);
    return channel;
  }

  async postMessage(channel: string, content: SlackMessageContent, onAttempt: AttemptSink) {
    const reply = await this.call(onAttempt, () =>
      this.retrying.chat.postMessage({
        channel,
        text: content.text,
        blocks: content.blocks,
        unfurl_links: false,
      }),
    );
    return PostedSchema.parse(reply);
  }

  async updateMessage(channel: string, ts: string, content: SlackMessageContent, onAttempt: AttemptSink) {
    await this.call(onAttempt, () =>
      this.retrying.chat.update({ channel, ts, text: content.text, blocks: content.blocks }),
    );
  }

  async openView(triggerId: string, view: ModalView, onAttempt: AttemptSink): Promise<void> {
    await this.call(onAttempt, () => this.once.views.open({ trigger_id: triggerId, view }), 0);
  }

  async postEphemeral(
    channel: string,
    memberId: string,
    text: string,
    onAttempt: AttemptSink,
  ): Promise<void> {
    await this.call(onAttempt, () => this.retrying.chat.postEphemeral({ channel, user: memberId, text }));
  }

  /** One Web API call, its 429s retried here after `Retry-After`; Slack's `ok: false` error noted. */
  private call<T>(
    onAttempt: AttemptSink,
    run: () => Promise<T>,
    rateLimitRetries = this.options.rateLimitRetries ?? 5,
  ): Promise<T> {
    const { clock } = this.options;
    return this.sinks.run(onAttempt, async () => {
      for (let retry = 0; ; retry++) {
        try {
          return await run();
        } catch (error) {
          const waitMs = rateLimitWait(error);
          const maxWait = this.options.maxRetryAfterMs ?? 60_000;
          if (waitMs !== undefined && retry < rateLimitRetries && waitMs <= maxWait) {
            await sleep(clock, waitMs);
            continue;
          }
          const platform = platformError(error);
          if (platform) onAttempt({ at: clock.now(), error: `slack: ${platform}` });
          throw error;
        }
      }
    });
  }
}

/** The `Retry-After` of a 429, in ms. */
function rateLimitWait(error: unknown): number | undefined {
  const e = error as { code?: string; retryAfter?: number };
  return e.code === ErrorCode.RateLimitedError && typeof e.retryAfter === 'number'
    ? Math.max(0, e.retryAfter) * 1000
    : undefined;
}

/** Slack's own error name of an `ok: false` reply (`channel_not_found`, `invalid_auth`, ...). */
function platformError(error: unknown): string | undefined {
  const e = error as { code?: string; data?: { error?: unknown } };
  return e.code === ErrorCode.PlatformError && typeof e.data?.error === 'string' ? e.data.error : undefined;
}

/** The SDK's logger, as warnings on the node's log only (its debug lines would hold request bodies). */
function quietLogger(logger: Logger): SlackLogger {
  const log = logger.child({ channel: 'slack' });
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...msg: unknown[]) => log.warn(msg.map(String).join(' ')),
    error: (...msg: unknown[]) => log.error(msg.map(String).join(' ')),
    setLevel: () => undefined,
    getLevel: () => LogLevel.WARN,
    setName: () => undefined,
  };
}
