import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The two credentials a chat carries, signed with a key derived from the node secret so every node
 * checks what any node made, with no store read:
 *
 * - an **elicitation id**: the JSON-RPC `id` of an `elicitation/create` the node writes into a held
 *   call's stream. It names the inquiry, the person asked and the MCP session, so the client's
 *   response, POSTed to whichever node, finds its inquiry and is checked against the token and the
 *   session that carry it.
 * - a **card token**: what the inquiry card (MCP Apps) answers with through `answer_inquiry`: bound
 *   to one inquiry and one person, expiring with the inquiry's answer window. It answers once: the
 *   first answer wins the inquiry, and every later use finds it ended.
 *
 * Form: `<kind>.<base64url JSON>.<base64url HMAC-SHA256 of "<kind>.<payload>">`.
 */

/** What an elicitation id says. */
export interface ElicitationClaims {
  inquiryId: string;
  userId: string;
  /** {@link sessionTag} of the session the elicitation was sent in. */
  sessionTag: string;
  mode: 'form' | 'url';
}

/** What a card token says. */
export interface CardClaims {
  inquiryId: string;
  userId: string;
  /** Epoch ms after which the token answers nothing. */
  expiresAt: number;
}

const ELICITATION = 'hitl-e1';
const CARD = 'hitl-c1';
/** Longer than any id or token this signs: a longer string is refused before it is parsed. */
const MAX_CHARS = 2048;

/** A short, stable tag of a session id (what ids and device ids carry instead of the id itself). */
export function sessionTag(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url').slice(0, 16);
}

export class ChatTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('hitl chat tokens v1').digest();
  }

  /** A fresh elicitation id (a nonce makes two for the same inquiry and session differ). */
  elicitationId(claims: ElicitationClaims): string {
    const { inquiryId, userId, sessionTag: s, mode } = claims;
    return this.sign(ELICITATION, {
      i: inquiryId,
      u: userId,
      s,
      m: mode,
      n: randomBytes(6).toString('base64url'),
    });
  }

  /** The claims of an id this service made; null for anything else (any other id, a forgery). */
  readElicitationId(id: unknown): ElicitationClaims | null {
    const p = this.open(ELICITATION, id);
    if (!p || !isString(p.i, p.u, p.s) || (p.m !== 'form' && p.m !== 'url')) return null;
    return { inquiryId: p.i as string, userId: p.u as string, sessionTag: p.s as string, mode: p.m };
  }

  cardToken(claims: CardClaims): string {
    return this.sign(CARD, { i: claims.inquiryId, u: claims.userId, e: claims.expiresAt });
  }

  /** The claims of a card token this service made and that has not expired at `now`; null otherwise. */
  readCardToken(token: unknown, now: number): CardClaims | null {
    const p = this.open(CARD, token);
    if (!p || !isString(p.i, p.u) || typeof p.e !== 'number' || p.e <= now) return null;
    return { inquiryId: p.i as string, userId: p.u as string, expiresAt: p.e };
  }

  private sign(kind: string, payload: Record<string, unknown>): string {
    const body = `${kind}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  private open(kind: string, value: unknown): Record<string, unknown> | null {
    if (typeof value !== 'string' || value.length > MAX_CHARS || !value.startsWith(`${kind}.`)) return null;
    const dot = value.lastIndexOf('.');
    const body = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = this.mac(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const payload: unknown = JSON.parse(Buffer.from(body.slice(kind.length + 1), 'base64url').toString());
      return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}

function isString(...values: unknown[]): boolean {
  return values.every((v) => typeof v === 'string' && v.length > 0);
}
