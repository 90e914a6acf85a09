import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../../lib/logger.js';
import type { Mailer, MailMessage } from './mailer.js';

/** Mail over SMTP_URL (e.g. `smtp://user:pass@host:587`, or `smtps://` for implicit TLS). */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
    private readonly log: Logger,
  ) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(message: MailMessage): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, ...message });
    this.log.info({ to: message.to, subject: message.subject, messageId: info.messageId }, 'email sent');
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
