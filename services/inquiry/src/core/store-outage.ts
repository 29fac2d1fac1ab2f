import { HitlError } from '@hitl/protocol';

const OUTAGE =
  /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Stream isn't writeable|Reached the max retries|CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|store did not answer/i;

/** True when an error means the shared store (Redis) is away, not that the request was wrong. */
export function isStoreOutage(error: unknown): boolean {
  return error instanceof Error && (error.name === 'MaxRetriesPerRequestError' || OUTAGE.test(error.message));
}

/** How long callers are told to wait before retrying while the store is away. */
export const OUTAGE_RETRY_MS = 2000;

/** The retryable error a door returns while the store is away (HTTP 503 / JSON-RPC with a retry hint). */
export function storeUnavailable(): HitlError {
  return new HitlError('unavailable', 'the inquiry store is unavailable; retry shortly', OUTAGE_RETRY_MS);
}
