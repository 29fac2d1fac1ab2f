import type { LinkTokens } from '@hitl/auth';
import type { Inquiry } from '@hitl/protocol';
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

  created(inquiry: Inquiry): void {
    const user = this.deps.directory.user(inquiry.userId);
    if (!user?.email || !user.notify?.includes('email')) return;
    const { email } = user;
    const delay = user.emailAfterMs ?? 0;
    if (delay <= 0) {
      void this.send(inquiry, email);
      return;
    }
    const deadline = inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt;
    if (inquiry.createdAt + delay >= deadline) return;
    const timer = this.deps.clock.setTimeout(() => {
      this.delayed.delete(inquiry.inquiryId);
      void this.sendIfPending(inquiry, email);
    }, delay);
    (timer as { unref?: () => void }).unref?.();
    this.delayed.set(inquiry.inquiryId, timer);
  }

  resolved(inquiry: Inquiry): void {
    const timer = this.delayed.get(inquiry.inquiryId);
    if (timer === undefined) return;
    this.deps.clock.clearTimeout(timer);
    this.delayed.delete(inquiry.inquiryId);
  }

  stop(): void {
    for (const timer of this.delayed.values()) this.deps.clock.clearTimeout(timer);
    this.delayed.clear();
    this.deps.transport.close();
  }

  private async sendIfPending(inquiry: Inquiry, to: string): Promise<void> {
    try {
      if (await this.deps.stillPending(inquiry.inquiryId)) await this.send(inquiry, to);
    } catch (error) {
      this.log(inquiry).warn({ err: (error as Error).message }, 'delayed mail not sent');
    }
  }

  private async send(inquiry: Inquiry, to: string): Promise<void> {
    const { links, publicUrl, transport, from } = this.deps;
    try {
      const token = await links.sign({
        userId: inquiry.userId,
        inquiryId: inquiry.inquiryId,
        channel: 'email',
        expiresAt: inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt,
      });
      const content = mailFor(inquiry, `${publicUrl().replace(/\/+$/, '')}/a/${token}`);
      const info = await transport.sendMail({ from, to, ...content });
      this.log(inquiry).info({ channel: 'email', messageId: info.messageId }, 'mail accepted');
    } catch (error) {
      this.log(inquiry).warn({ channel: 'email', err: (error as Error).message }, 'mail not sent');
    }
  }

  private log(inquiry: Inquiry): Logger {
    return this.deps.logger.child({ inquiryId: inquiry.inquiryId, userId: inquiry.userId });
  }
}
