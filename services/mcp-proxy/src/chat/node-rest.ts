import type { TokenService } from '@hitl/auth';
import { type Inquiry, InquirySchema } from '@hitl/protocol';

/*
 * The inquiry node's REST, as the person the proxy elicited in the agent's chat: the proxy reads the
 * approval it asked (to put it in the chat) and answers it from the device "<client name> (chat)".
 * It acts with a short-lived device token for that person, minted with the shared secret and named
 * as the chat device, so the node's device list and the inquiry's `resolvedBy` say where the answer
 * came from.
 */

/** How long a minted chat-device token lives, and how long it is reused. */
const DEVICE_TOKEN_LIFETIME = '15m';
const REUSE_MS = 5 * 60_000;
/** Most tokens kept for reuse (one per person and chat client). */
const MAX_CACHED = 1000;
/** The longest a REST request to the node may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** An answer to an approval: `approve` or `reject`, with the person's reason. */
export interface ChatAnswer {
  response: 'approve' | 'reject';
  reason?: string;
}

/** What the node said to an answer: the winner (`won`), or someone was first (`already_resolved`). */
export type AnswerOutcome = 'won' | 'already_resolved' | 'refused';

export class NodeRest {
  private readonly base: string;
  private readonly cache = new Map<string, { token: string; until: number }>();

  /** `inquiryUrl`: the node's base URL or its `/mcp`. */
  constructor(
    inquiryUrl: string,
    private readonly tokens: TokenService,
  ) {
    const url = new URL(inquiryUrl);
    url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/mcp$/, '');
    this.base = url.toString().replace(/\/+$/, '');
  }

  /** The inquiry as `userId` sees it; null when the node does not know it (or not for them). */
  async inquiry(userId: string, deviceName: string, inquiryId: string): Promise<Inquiry | null> {
    const response = await fetch(`${this.base}/api/inquiries/${encodeURIComponent(inquiryId)}`, {
      headers: await this.headers(userId, deviceName),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`the inquiry node answered ${response.status}`);
    const parsed = InquirySchema.safeParse(await response.json());
    if (!parsed.success) throw new Error('the inquiry node sent an inquiry this proxy cannot read');
    return parsed.data;
  }

  /** Answers `inquiryId` as `userId` from the device `deviceName`. */
  async answer(
    userId: string,
    deviceName: string,
    inquiryId: string,
    answer: ChatAnswer,
  ): Promise<{ outcome: AnswerOutcome; detail?: string }> {
    const response = await fetch(`${this.base}/api/inquiries/${encodeURIComponent(inquiryId)}/answer`, {
      method: 'POST',
      headers: { ...(await this.headers(userId, deviceName)), 'content-type': 'application/json' },
      body: JSON.stringify(answer),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (response.ok) return { outcome: 'won' };
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    if (response.status === 409) return { outcome: 'already_resolved' };
    return { outcome: 'refused', detail: `${response.status} ${body.error?.message ?? ''}`.trim() };
  }

  private async headers(userId: string, deviceName: string): Promise<Record<string, string>> {
    // The device name travels as a header: visible ASCII only (chatDeviceName makes it so).
    const name = deviceName.replace(/[^\x20-\x7e]/g, '?');
    const key = `${userId}\u0000${name}`;
    let cached = this.cache.get(key);
    if (!cached || cached.until <= Date.now()) {
      const token = await this.tokens.sign(
        { sub: userId, role: 'device', name },
        { expiresIn: DEVICE_TOKEN_LIFETIME },
      );
      cached = { token, until: Date.now() + REUSE_MS };
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(key, cached);
    }
    return { authorization: `Bearer ${cached.token}`, 'x-device-name': name };
  }
}
