import { verifySlackRequest } from '@slack/bolt/dist/receivers/verify-request.js';

/** How far a request's timestamp may be from our clock, either way. */
export const SLACK_TIMESTAMP_WINDOW_MS = 5 * 60_000;

export interface SlackRequestCheck {
  signingSecret: string;
  /** The raw body as received (the signature covers it byte for byte). */
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  nowMs: number;
}

/**
 * Why a request did not come from Slack, or undefined when it did: `v0=` HMAC-SHA256 with the signing
 * secret over `v0:<timestamp>:<body>`, the timestamp within 5 minutes. The check itself is Bolt's
 * (`verifySlackRequest`, imported alone: the rest of Bolt is not loaded); Bolt refuses a timestamp
 * older than 5 minutes, and one more than 5 minutes ahead is refused here. Bolt has no `exports` map, so
 * the module is imported by its path: `@slack/bolt` is pinned to an exact version in package.json, and
 * `test/slack-interactions.test.ts` (wrong signature, stale timestamp) fails the day the path moves.
 */
export function slackRequestProblem(check: SlackRequestCheck): string | undefined {
  const { timestamp, signature } = check;
  if (!timestamp || !signature) return 'x-slack-signature and x-slack-request-timestamp are required';
  if (!/^\d{1,12}$/.test(timestamp)) return 'x-slack-request-timestamp: expected seconds since 1970';
  const seconds = Number(timestamp);
  if (seconds * 1000 > check.nowMs + SLACK_TIMESTAMP_WINDOW_MS) {
    return 'x-slack-request-timestamp: more than 5 minutes ahead of this server';
  }
  try {
    verifySlackRequest({
      signingSecret: check.signingSecret,
      body: check.body,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': seconds },
      nowMilliseconds: check.nowMs,
    });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
