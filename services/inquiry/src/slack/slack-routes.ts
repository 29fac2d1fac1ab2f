import { createHash } from 'node:crypto';
import { errorResponse, limitBody } from '@hitl/mcp-http';
import { describeDepthProblem, describeZodError, HitlError, jsonDepthProblem, LIMITS } from '@hitl/protocol';
import type { SlackStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';
import { restErrors } from '../http/error-handlers.js';
import { InteractionSchema } from './interaction-payload.js';
import type { SlackInteractions } from './interactions.js';
import { SLACK_TIMESTAMP_WINDOW_MS, slackRequestProblem } from './slack-verify.js';

export interface SlackRouteDeps {
  signingSecret: string;
  store: SlackStore;
  interactions: SlackInteractions;
  clock: Clock;
  logger: Logger;
}

/** The header that says what a request did (Slack reads only the body; tests and logs read this). */
export const OUTCOME_HEADER = 'hitl-slack-outcome';

/**
 * `/slack`: `POST /slack/interactions`, where Slack sends clicks and modal submissions (form field
 * `payload`, JSON). In this order: the body's size (at most the REST body cap, else 413), Slack's
 * signature and timestamp (else 401 and nothing else happens), the request taken once (a replay of
 * a signed request within its 5 minutes: 401), then the payload (400 naming the field), then the
 * click. No Host / Origin guard: the caller is Slack's servers, and the signature is the credential.
 */
export function slackRoutes(deps: SlackRouteDeps): Hono {
  const app = new Hono();
  app.onError(restErrors(deps.logger));
  app.use('*', limitBody(LIMITS.bodyBytes));
  app.post('/interactions', async (c) => {
    const body = await c.req.text();
    const signature = c.req.header('x-slack-signature');
    const nowMs = deps.clock.now();
    const problem = slackRequestProblem({
      signingSecret: deps.signingSecret,
      body,
      timestamp: c.req.header('x-slack-request-timestamp'),
      signature,
      nowMs,
    });
    if (problem) {
      deps.logger.warn({ problem }, 'slack request refused');
      throw new HitlError('unauthorized', `not a request from Slack: ${problem}`);
    }
    const once = `req:${createHash('sha256')
      .update(signature ?? '')
      .digest('base64url')}`;
    if (!(await deps.store.claim(once, nowMs + 2 * SLACK_TIMESTAMP_WINDOW_MS))) {
      throw new HitlError('unauthorized', 'this signed request was received before (a replay): nothing done');
    }
    const reply = await deps.interactions.handle(parseInteraction(body, c.req.header('content-type')));
    c.header(OUTCOME_HEADER, reply.outcome);
    return reply.body ? c.json(reply.body) : c.body(null, 200);
  });
  app.all('/interactions', (c) =>
    errorResponse(c, 'method_not_allowed', `${c.req.method} not allowed: POST only`),
  );
  app.notFound((c) => errorResponse(c, 'not_found', `no route ${c.req.method} ${c.req.path}`));
  return app;
}

/** The form field `payload`, as JSON, checked against what we read of Slack's payloads. */
function parseInteraction(body: string, contentType: string | undefined) {
  if (!contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new HitlError('invalid_input', 'content-type: expected application/x-www-form-urlencoded');
  }
  const raw = new URLSearchParams(body).get('payload');
  if (raw === null) throw new HitlError('invalid_input', 'payload: required (a form field holding JSON)');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new HitlError('invalid_input', 'payload: not JSON');
  }
  const depth = jsonDepthProblem(json, LIMITS.jsonDepth);
  if (depth) throw new HitlError('invalid_input', `payload: ${describeDepthProblem(depth)}`);
  const parsed = InteractionSchema.safeParse(json);
  if (!parsed.success) throw new HitlError('invalid_input', `payload: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
