import { readFile } from 'node:fs/promises';
import type { ChatTokens } from '@hitl/auth';
import { type Inquiry, isAddressedTo, toDeviceInquiry } from '@hitl/protocol';
import type { CallToolResult, ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';

/*
 * The inquiry card (MCP Apps, `io.modelcontextprotocol/ui`): one self-contained HTML document the
 * host renders beside `send_inquiry` / `get_inquiry`, built from the web terminal's card components
 * (web/src/card). The card answers with the app-only tool `answer_inquiry`, bound to a single-use
 * card token that only a result's `_meta` carries; it never approves (an approval opens the
 * inquiry's page in the browser).
 */

/** The card's resource, as the tools name it. */
export const CARD_URI = 'ui://hitl/inquiry-card';
/** The MCP Apps HTML profile (ext-apps' `RESOURCE_MIME_TYPE`). */
export const CARD_MIME_TYPE = 'text/html;profile=mcp-app';
/** What `send_inquiry` and `get_inquiry` carry: the card, in today's form and the legacy key ext-apps also writes. */
export const CARD_TOOL_META = { ui: { resourceUri: CARD_URI }, 'ui/resourceUri': CARD_URI };

/** `_meta` keys of a result the card reads (never `content` or `structuredContent`: the model reads those). */
export const CARD_META = {
  token: 'hitl/cardToken',
  inquiry: 'hitl/inquiry',
  page: 'hitl/page',
} as const;

/** Shown when the card was not built (`npm run build` builds it into the web app's dist folder). */
const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Inquiry</title>
<body><main><p>The inquiry card is not built on this server. Answer on your devices or the web page.</p></main></body></html>`;

export interface InquiryCardsDeps {
  tokens: ChatTokens;
  /** Where people reach the web terminal (the page of one inquiry is `<it>/i/<inquiryId>`). */
  publicUrl: () => string;
  /** The built card (`<web dist>/inquiry-card.html`); absent: a note that it is not built. */
  file?: string;
}

export class InquiryCards {
  private html: Promise<string> | undefined;

  constructor(private readonly deps: InquiryCardsDeps) {}

  /** `resources/list`: the card. */
  list(): Resource[] {
    return [
      {
        uri: CARD_URI,
        name: 'inquiry-card',
        title: 'Question for you',
        description: 'Shows a question the agent asked you, and lets you answer it here.',
        mimeType: CARD_MIME_TYPE,
      },
    ];
  }

  /** `resources/read` of the card: the one HTML document (read once, kept). */
  async read(): Promise<ReadResourceResult> {
    const { file } = this.deps;
    this.html ??= file ? readFile(file, 'utf8').catch(() => NOT_BUILT) : Promise.resolve(NOT_BUILT);
    return { contents: [{ uri: CARD_URI, mimeType: CARD_MIME_TYPE, text: await this.html }] };
  }

  /** The web terminal's page of one inquiry. */
  pageUrl(inquiryId: string): string {
    return `${this.deps.publicUrl().replace(/\/+$/, '')}/i/${encodeURIComponent(inquiryId)}`;
  }

  /**
   * A result with what the card needs in its `_meta`, when the card may answer (the inquiry is
   * pending and `userId` is asked): the card token (bound to inquiry and user, until the answer
   * window ends), the inquiry as a device sees it, and its page. Any other result is returned as is.
   */
  withCard(result: CallToolResult, inquiry: Inquiry | null, userId: string, now: number): CallToolResult {
    if (inquiry?.status !== 'pending' || !isAddressedTo(inquiry, userId)) return result;
    const { inquiryId, deadlines } = inquiry;
    const token = this.deps.tokens.cardToken({ inquiryId, userId, expiresAt: deadlines.serviceAt });
    return {
      ...result,
      _meta: {
        ...result._meta,
        [CARD_META.token]: token,
        [CARD_META.inquiry]: toDeviceInquiry(inquiry, now),
        [CARD_META.page]: this.pageUrl(inquiryId),
      },
    };
  }

  /** The claims of a card token, or null (forged, expired, another kind of token). */
  claimsOf(token: unknown, now: number) {
    return this.deps.tokens.readCardToken(token, now);
  }
}
