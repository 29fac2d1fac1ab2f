import {
  emptyRevocations,
  isRevoked,
  type RevocableToken,
  type RevocationList,
  type RevocationStore,
} from '@hitl/store';
import type { Logger } from 'pino';

/** A safety net behind pub/sub: a change whose message was lost is still seen within this. */
const DEFAULT_REFRESH_MS = 5000;

/**
 * This node's copy of the revocation list: read at start, re-read whenever any node records a
 * revocation (the store's change feed) and every `refreshMs` (5 s by default). Checking a token reads memory only.
 * While the store is away the last list stays in force.
 */
export class RevocationCache {
  private list: RevocationList = emptyRevocations;
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private loading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly store: RevocationStore,
    private readonly logger: Logger,
    /** The fallback re-read's period (`HITL_REVOCATION_POLL_MS`). */
    private readonly refreshMs = DEFAULT_REFRESH_MS,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = this.store.onChange(() => void this.reload());
    // A Redis that is away must not hold the start: the poll below covers until it subscribes.
    const subscribed = this.store.ready().catch((error: unknown) => {
      this.logger.warn({ err: error }, 'revocation feed not subscribed yet; polling meanwhile');
    });
    await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    await this.reload();
    this.timer = setInterval(() => void this.reload(), this.refreshMs);
    this.timer.unref();
  }

  isRevoked(token: RevocableToken): boolean {
    return isRevoked(this.list, token);
  }

  /** Called after each re-read, so holders of admitted tokens (sockets) can drop revoked ones. */
  onReload(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe?.();
    this.listeners.clear();
  }

  /** One read at a time; a change during a read triggers one more. */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        try {
          this.list = await this.store.list();
          for (const listener of [...this.listeners]) listener();
        } catch (error) {
          this.logger.warn({ err: error }, 'could not re-read revocations; the last list stays');
        }
      } while (this.again);
    })().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }
}
