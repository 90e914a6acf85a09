import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface MatchOptions {
  subject?: string;
  timeoutMs?: number;
  /** Emails already there (`mark()`): only a newer one matches, so an earlier code is never taken for the one just asked for. */
  since?: ReadonlySet<string>;
}

export interface OutboxEmail {
  file: string;
  to: string;
  subject: string;
  raw: string;
  /** The body, decoded from quoted-printable when it was sent so. */
  text: string;
}

/** Reads what the outbox mailer wrote, as a user would read their inbox. */
export class Outbox {
  constructor(readonly directory: string) {}

  async all(): Promise<OutboxEmail[]> {
    const files = (await readdir(this.directory).catch(() => [] as string[])).filter((file) => file.endsWith('.eml')).sort();
    return Promise.all(
      files.map(async (file) => {
        const raw = await readFile(join(this.directory, file), 'utf8');
        return { file, raw, to: header(raw, 'To'), subject: header(raw, 'Subject'), text: body(raw) };
      }),
    );
  }

  /** The emails there now, for `since`. */
  async mark(): Promise<ReadonlySet<string>> {
    return new Set((await this.all()).map((email) => email.file));
  }

  /**
   * The newest email to `to`, with `subject` if given, waiting for it up to `timeoutMs` (some are
   * sent after the response).
   */
  async latest(to: string, { subject, timeoutMs = 5_000, since }: MatchOptions = {}): Promise<OutboxEmail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.all()).filter((email) => email.to === to && (subject === undefined || email.subject === subject) && !since?.has(email.file)).at(-1);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no email to ${to}${subject ? ` about "${subject}"` : ''} in ${this.directory}`);
      await sleep(25);
    }
  }

  /** The six-digit code of the newest matching email to `to`. */
  async code(to: string, options?: MatchOptions): Promise<string> {
    const email = await this.latest(to, options);
    const match = /code is (\d{6})/.exec(email.text);
    if (!match) throw new Error(`no code in ${email.file}`);
    return match[1]!;
  }
}

/** The body after the headers; quoted-printable soft breaks and escapes undone. */
function body(raw: string): string {
  const text = raw.slice(raw.indexOf('\n\n') + 2);
  if (!/^Content-Transfer-Encoding: quoted-printable$/im.test(raw)) return text;
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

const header = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(raw)?.[1]?.trim() ?? '';
