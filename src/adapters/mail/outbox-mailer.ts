import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '../../lib/logger.js';
import type { Mailer, MailMessage } from './mailer.js';

/**
 * The embedded mail transport: each message becomes an `.eml` file under `DATA_DIR/outbox/`, built
 * by nodemailer exactly as SMTP would send it. The log line names the file, never the body, which
 * may hold a one-time code.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    private readonly directory: string,
    private readonly from: string,
    private readonly log: Logger,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, ...message });
    await mkdir(this.directory, { recursive: true });
    const file = join(this.directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
    await writeFile(file, info.message as Buffer, { mode: 0o600 });
    this.log.info({ to: message.to, subject: message.subject, file }, 'email written to outbox');
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
