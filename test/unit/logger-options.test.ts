import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { pino, type LoggerOptions } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loggerOptions, prettyStream } from '../../src/lib/logger-options.js';

const capture = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
};

/** Logs one request line with a secret, through the options as Fastify would build them. */
async function logThrough(options: LoggerOptions, stream: NodeJS.WritableStream): Promise<void> {
  const logger = pino(options, stream);
  logger.info({ req: { method: 'GET', url: '/auth/codehost/callback?code=abc&state=def', headers: { cookie: 'session=secret' } }, apiKey: { apiKey: 'sk-secret' } }, 'request done');
  logger.flush();
  await new Promise((resolve) => setImmediate(resolve));
}

describe('log format', () => {
  const isTTY = process.stdout.isTTY;
  afterEach(() => {
    process.stdout.isTTY = isTTY;
  });

  it('is pretty at a terminal and buffered JSON otherwise', () => {
    const streamOf = (options: unknown) => (options as { stream: object }).stream.constructor.name;
    process.stdout.isTTY = true;
    expect(streamOf(loggerOptions('info'))).toBe('Transform');
    process.stdout.isTTY = false;
    expect(streamOf(loggerOptions('info'))).toBe('SonicBoom');
    expect(streamOf(loggerOptions('info', { pretty: true }))).toBe('Transform');
  });

  it('buffered JSON: every line reaches stdout, the last ones as the process exits', () => {
    const script = [
      "import { pino } from 'pino';",
      "import { loggerOptions } from './src/lib/logger-options.ts';",
      "const { stream, ...options } = loggerOptions('info', { pretty: false });",
      'const log = pino(options, stream);',
      "log.info('first');",
      "setTimeout(() => { log.info('last'); process.exit(0); }, 300);",
    ].join('\n');
    const lines = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['first', 'last']);
  });

  it('pretty: one readable line per entry, secrets redacted as in JSON', async () => {
    const { lines, stream } = capture();
    const { stream: _ignored, ...options } = loggerOptions('info', { pretty: true }) as LoggerOptions & { stream?: unknown };
    await logThrough(options, prettyStream(stream));
    const text = lines.join('');
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).toMatch(/INFO.*request done/);
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(text).not.toMatch(/secret|abc|def/);
    expect(text).toContain('[redacted]');
  });

  it('JSON: one object per line, the same redaction', async () => {
    const { lines, stream } = capture();
    await logThrough(loggerOptions('info', { pretty: false }) as LoggerOptions, stream);
    const entry = JSON.parse(lines.join('')) as { msg: string; req: { url: string }; apiKey: { apiKey: string } };
    expect(entry.msg).toBe('request done');
    expect(entry.req.url).toBe('/auth/codehost/callback?code=[redacted]&state=[redacted]');
    expect(entry.apiKey.apiKey).toBe('[redacted]');
    expect(lines.join('')).not.toContain('secret');
  });
});
