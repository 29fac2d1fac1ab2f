import { randomBytes } from 'node:crypto';
import type { HostPolicy, LinkClaims, LinkTokens } from '@hitl/auth';
import { limitBody, rateLimited } from '@hitl/mcp-http';
import { HitlError, type Inquiry, LIMITS } from '@hitl/protocol';
import type { RevocableToken } from '@hitl/store';
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { linkRevoked } from '../auth/link-revocation.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { readSubmission } from './answer-link-form.js';
import { guardLinkOrigin } from './answer-link-guard.js';
import { secureHeaders } from './answer-link-headers.js';
import { answerPage, endedPage, messagePage, thanksPage, withdrawnPage } from './answer-link-page.js';
import { linkErrors } from './error-handlers.js';

export interface AnswerLinkDeps {
  service: InquiryService;
  links: LinkTokens;
  limiter: RateLimiter;
  hostPolicy: HostPolicy;
  logger: Logger;
  /** The node's revocation list (memory): a revoked person's, link's or inquiry's links are refused. */
  isRevoked: (token: RevocableToken) => boolean;
}

type Opened = { ok: true; claims: LinkClaims; inquiry: Inquiry } | { ok: false; response: Response };

/**
 * `/a/<link token>`: whoever holds the link sees one inquiry and may answer or refuse it
 * once. GET never changes anything (mail scanners fetch links); POST settles through the same service
 * path as a device, so the first answer from any door wins.
 */
export function answerLinkRoutes(deps: AnswerLinkDeps): Hono {
  const app = new Hono();
  app.onError(linkErrors(deps.logger));
  app.use('*', guardLinkOrigin(deps.hostPolicy));

  const html = (c: Context, body: string, status: ContentfulStatusCode = 200) => c.html(body, status);

  /** Checks the link and reads its inquiry; the page to show instead when it cannot be used. */
  async function open(c: Context, nonce: string): Promise<Opened> {
    const claims = await deps.links.verify(c.req.param('token') ?? '');
    if (claims === 'expired') {
      const body = messagePage('This link has expired', 'The time to answer this question is over.', nonce);
      return { ok: false, response: html(c, body, 410) };
    }
    const inquiry = claims && (await deps.service.find(claims.inquiryId, claims.userId));
    if (!claims || !inquiry) {
      const body = messagePage(
        'Link not found',
        'This link is not valid. Check that it was copied whole.',
        nonce,
      );
      return { ok: false, response: html(c, body, 404) };
    }
    if (linkRevoked(deps.isRevoked, claims)) {
      return { ok: false, response: html(c, withdrawnPage(nonce), 403) };
    }
    return { ok: true, claims, inquiry };
  }

  app.get('/:token', async (c) => {
    const nonce = randomBytes(16).toString('base64');
    secureHeaders(c, nonce);
    const opened = await open(c, nonce);
    if (!opened.ok) return opened.response;
    const { inquiry } = opened;
    return html(c, inquiry.status === 'pending' ? answerPage(inquiry, nonce) : endedPage(inquiry, nonce));
  });

  app.post('/:token', limitBody(LIMITS.bodyBytes), async (c) => {
    const nonce = randomBytes(16).toString('base64');
    secureHeaders(c, nonce);
    const opened = await open(c, nonce);
    if (!opened.ok) return opened.response;
    const { claims, inquiry } = opened;
    const decision = await deps.limiter.consume(`link:${claims.linkId}`);
    if (!decision.ok) throw rateLimited(decision.retryAfterMs);
    if (inquiry.status !== 'pending') return html(c, endedPage(inquiry, nonce, 'Already answered'), 409);
    const submission = readSubmission(inquiry, await c.req.parseBody({ all: true }));
    const device = { deviceId: `link:${claims.linkId}`, deviceName: `${claims.channel} link` };
    const reason = submission.reason === undefined ? {} : { reason: submission.reason };
    const ending =
      submission.type === 'refusal'
        ? { type: 'refusal' as const, device, ...reason }
        : { type: 'answer' as const, response: submission.response, device, ...reason };
    if ((submission.reason?.length ?? 0) > LIMITS.reasonChars) {
      return html(c, answerPage(inquiry, nonce, `reason: at most ${LIMITS.reasonChars} characters`), 400);
    }
    try {
      const result = await deps.service.settle(inquiry.inquiryId, claims.userId, ending);
      if (result.kind === 'won' || result.kind === 'counted') {
        deps.logger.info(
          {
            inquiryId: inquiry.inquiryId,
            userId: claims.userId,
            channel: claims.channel,
            linkId: claims.linkId,
          },
          'answered through a link',
        );
        return html(c, thanksPage(result.inquiry, nonce));
      }
      if (result.kind === 'already_voted') {
        return html(c, endedPage(result.inquiry, nonce, 'You have voted already'), 409);
      }
      const latest = result.kind === 'lost' ? result.inquiry : inquiry;
      return html(c, endedPage(latest, nonce, 'Already answered'), 409);
    } catch (error) {
      if (error instanceof HitlError && error.code === 'invalid_input') {
        return html(c, answerPage(inquiry, nonce, error.message), 400);
      }
      throw error;
    }
  });

  return app;
}
