import { randomBytes } from 'node:crypto';
import type { LinkTokens } from '@hitl/auth';
import { audienceOf, type Inquiry } from '@hitl/protocol';
import type { DeliveryLog } from '@hitl/store';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import { mailFor } from './email-content.js';

export interface EmailNotifierDeps {
  transport: Pick<Transporter, 'sendMail' | 'close'>;
  from: string;
  directory: DirectoryHolder;
  links: LinkTokens;
  /** Where each mail's outcome is kept for ops (channel `email`). */
  log: DeliveryLog;
  /** Where answer links point: `<publicUrl>/a/<token>` (known once the node listens). */
  publicUrl: () => string;
  /** Whether the inquiry is still waiting (a delayed mail is dropped once it is not). */
  stillPending(inquiryId: string): Promise<boolean>;
  clock: Clock;
  logger: Logger;
}

/**
 * Mails a person whose directory entry asks for mail (`notify: [email]`), at once or after
 * `emailAfterMs` unanswered. The node that created the inquiry sends it (creation events fire there
 * only), off the MCP path: a slow or failing mail server delays nothing else.
 */
export class EmailNotifier implements InquiryEvents {
  private readonly delayed = new Map<string, unknown>();

  constructor(private readonly deps: EmailNotifierDeps) {}

  /** Mails every user the inquiry is addressed to who wants mail, each with a link of their own. */
  created(inquiry: Inquiry): void {
    for (const userId of audienceOf(inquiry)) this.mailOne(inquiry, userId);
  }

  /** The people an escalation added are mailed at once (the escalation was the wait). */
  escalated(inquiry: Inquiry): void {
    for (const userId of inquiry.escalation?.users ?? []) this.mailOne(inquiry, userId, 0);
  }

  resolved(inquiry: Inquiry): void {
    for (const userId of audienceOf(inquiry)) {
      const key = delayKey(inquiry, userId);
      const timer = this.delayed.get(key);
      if (timer === undefined) continue;
      this.deps.clock.clearTimeout(timer);
      this.delayed.delete(key);
    }
  }

  private mailOne(inquiry: Inquiry, userId: string, delayMs?: number): void {
    const user = this.deps.directory.user(userId);
    if (!user?.email || !user.notify?.includes('email')) return;
    const { email } = user;
    const delay = delayMs ?? user.emailAfterMs ?? 0;
    if (delay <= 0) {
      void this.send(inquiry, userId, email);
      return;
    }
    const deadline = inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt;
    if (inquiry.createdAt + delay >= deadline) return;
    const key = delayKey(inquiry, userId);
    const timer = this.deps.clock.setTimeout(() => {
      this.delayed.delete(key);
      void this.sendIfPending(inquiry, userId, email);
    }, delay);
    (timer as { unref?: () => void }).unref?.();
    this.delayed.set(key, timer);
  }

  stop(): void {
    for (const timer of this.delayed.values()) this.deps.clock.clearTimeout(timer);
    this.delayed.clear();
    this.deps.transport.close();
  }

  private async sendIfPending(inquiry: Inquiry, userId: string, to: string): Promise<void> {
    try {
      if (await this.deps.stillPending(inquiry.inquiryId)) await this.send(inquiry, userId, to);
    } catch (error) {
      this.logOf(inquiry).warn({ err: (error as Error).message }, 'delayed mail not sent');
    }
  }

  private async send(inquiry: Inquiry, userId: string, to: string): Promise<void> {
    const { links, publicUrl, transport, from, clock } = this.deps;
    const at = clock.now();
    let attempt: { at: number; status?: number; error?: string };
    try {
      const token = await links.sign({
        userId,
        inquiryId: inquiry.inquiryId,
        channel: 'email',
        expiresAt: inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt,
      });
      const content = mailFor(inquiry, `${publicUrl().replace(/\/+$/, '')}/a/${token}`);
      const info = await transport.sendMail({ from, to, ...content });
      // The SMTP server's reply, e.g. "250 2.0.0 Ok: queued as ...".
      const status = Number(String(info.response ?? '').match(/^\d{3}/)?.[0] ?? 250);
      attempt = { at, status };
      this.logOf(inquiry).info({ channel: 'email', messageId: info.messageId }, 'mail accepted');
    } catch (error) {
      attempt = { at, error: (error as Error).message };
      this.logOf(inquiry).warn({ channel: 'email', err: (error as Error).message }, 'mail not sent');
    }
    await this.deps.log
      .save({
        id: `mail_${randomBytes(16).toString('base64url')}`,
        channel: 'email',
        event: 'inquiry.created',
        url: `mailto:${to}`,
        inquiryId: inquiry.inquiryId,
        userId,
        createdAt: at,
        status: attempt.error ? 'failed' : 'delivered',
        attempts: [attempt],
      })
      .catch(() => undefined);
  }

  private logOf(inquiry: Inquiry): Logger {
    return this.deps.logger.child({ inquiryId: inquiry.inquiryId, userId: inquiry.userId });
  }
}

function delayKey(inquiry: Inquiry, userId: string): string {
  return `${inquiry.inquiryId}\u0000${userId}`;
}
