import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Mailer } from '../../src/adapters/mail/mailer.js';
import { OutboxMailer } from '../../src/adapters/mail/outbox-mailer.js';
import { SmtpMailer } from '../../src/adapters/mail/smtp-mailer.js';
import type { Logger } from '../../src/lib/logger.js';
import { Outbox } from '../helpers/outbox.js';

const FROM = 'Review Service <noreply@review.test>';

interface Delivered {
  /** Envelope recipients where the transport has an envelope, else the To header. */
  recipients: string[];
  raw: string;
}

interface MailerHarness {
  mailer: Mailer;
  /** What has arrived so far, oldest first. */
  delivered(): Promise<Delivered[]>;
  dispose(): Promise<void>;
}

interface MailerImplementation {
  name: string;
  create: (log: Logger) => Promise<MailerHarness>;
}

const header = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(raw)?.[1]?.trim();

/** A real SMTP server on a free local port that keeps what it receives. */
async function startSmtpServer(options: { rejectRecipient?: (address: string) => boolean } = {}) {
  const received: Delivered[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: nodemailer would otherwise upgrade to TLS and reject the self-signed certificate.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.rejectRecipient?.(address.address)) callback(Object.assign(new Error('no such user'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const implementations: MailerImplementation[] = [
  {
    name: 'OutboxMailer',
    create: async (log) => {
      const root = await mkdtemp(join(tmpdir(), 'mailer-contract-'));
      // A directory that does not exist yet: the mailer creates it.
      const directory = join(root, 'outbox');
      const mailer = new OutboxMailer(directory, FROM, log);
      const outbox = new Outbox(directory);
      return {
        mailer,
        delivered: async () => (await outbox.all()).map((email) => ({ recipients: [email.to], raw: email.raw })),
        dispose: async () => {
          await mailer.close();
          await rm(root, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'SmtpMailer',
    create: async (log) => {
      const server = await startSmtpServer();
      const mailer = new SmtpMailer(server.url, FROM, log);
      return {
        mailer,
        delivered: async () => [...server.received],
        dispose: async () => {
          await mailer.close();
          await server.close();
        },
      };
    },
  },
];

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream) as Logger, lines };
}

describe.each(implementations)('Mailer contract: $name', ({ create }) => {
  let harness: MailerHarness;
  let logLines: string[];

  beforeEach(async () => {
    const { log, lines } = capturingLogger();
    logLines = lines;
    harness = await create(log);
  });
  afterEach(() => harness.dispose());

  it('delivers the recipient, sender, subject and body', async () => {
    await harness.mailer.send({ to: 'ada@example.test', subject: 'Verify your email', text: 'Your code is 123456.' });

    const [email, ...rest] = await harness.delivered();
    expect(rest).toHaveLength(0);
    expect(email!.recipients).toEqual(['ada@example.test']);
    expect(header(email!.raw, 'To')).toBe('ada@example.test');
    expect(header(email!.raw, 'From')).toBe(FROM);
    expect(header(email!.raw, 'Subject')).toBe('Verify your email');
    expect(email!.raw).toContain('Your code is 123456.');
  });

  it('sends the HTML alternative beside the text', async () => {
    await harness.mailer.send({ to: 'bob@example.test', subject: 'Both', text: 'Plain words', html: '<p>Rich <b>words</b></p>' });

    const [email] = await harness.delivered();
    expect(header(email!.raw, 'Content-Type')).toMatch(/^multipart\/alternative/);
    expect(email!.raw).toContain('Plain words');
    expect(email!.raw).toContain('<p>Rich <b>words</b></p>');
  });

  it('delivers each message separately', async () => {
    await harness.mailer.send({ to: 'one@example.test', subject: 'First', text: 'first body' });
    await harness.mailer.send({ to: 'two@example.test', subject: 'Second', text: 'second body' });

    const delivered = await harness.delivered();
    expect(delivered.map((email) => header(email.raw, 'Subject')).sort()).toEqual(['First', 'Second']);
    expect(delivered.flatMap((email) => email.recipients).sort()).toEqual(['one@example.test', 'two@example.test']);
  });

  it('logs the recipient but never the body, which may hold a one-time code', async () => {
    await harness.mailer.send({ to: 'carol@example.test', subject: 'Sign in', text: 'Your code is 987654.' });

    const log = logLines.join('');
    expect(log).toContain('carol@example.test');
    expect(log).not.toContain('987654');
  });
});

describe('OutboxMailer', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'outbox-mailer-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('writes an .eml file only its owner can read, with the headers and body', async () => {
    const directory = join(root, 'outbox');
    const mailer = new OutboxMailer(directory, FROM, pino({ level: 'silent' }));
    await mailer.send({ to: 'dave@example.test', subject: 'Reset your password', text: 'Your code is 246810.' });
    await mailer.close();

    const files = await readdir(directory);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const file = join(directory, files[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const raw = await readFile(file, 'utf8');
    expect(header(raw, 'From')).toBe(FROM);
    expect(header(raw, 'To')).toBe('dave@example.test');
    expect(header(raw, 'Subject')).toBe('Reset your password');
    expect(header(raw, 'Message-ID')).toMatch(/^<.+@.+>$/);
    expect(header(raw, 'Date')).toBeDefined();
    // Headers, a blank line, then the body.
    expect(raw.split('\n\n').slice(1).join('\n\n')).toContain('Your code is 246810.');
  });
});

describe('SmtpMailer', () => {
  it('rejects when the server refuses the recipient', async () => {
    const server = await startSmtpServer({ rejectRecipient: (address) => address.startsWith('nobody@') });
    const mailer = new SmtpMailer(server.url, FROM, pino({ level: 'silent' }));
    try {
      await expect(mailer.send({ to: 'nobody@example.test', subject: 'Lost', text: 'never arrives' })).rejects.toThrow(/no such user/);
      expect(server.received).toHaveLength(0);
    } finally {
      await mailer.close();
      await server.close();
    }
  });

  it('rejects when no server is listening', async () => {
    const server = await startSmtpServer();
    await server.close();
    const mailer = new SmtpMailer(server.url, FROM, pino({ level: 'silent' }));
    try {
      await expect(mailer.send({ to: 'ada@example.test', subject: 'Lost', text: 'never arrives' })).rejects.toThrow();
    } finally {
      await mailer.close();
    }
  });
});
