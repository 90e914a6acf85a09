import type { FastifyServerOptions } from 'fastify';
import { pino } from 'pino';
import pinoPretty from 'pino-pretty';

const SECRET_QUERY_PARAMS = /([?&](?:code|state|token|otp|key|password|access_token)=)[^&#]*/gi;

/** An invitation's token is its path's last segment (decisions.md §15), on the API and the page alike. */
const INVITATION_TOKEN_PATH = /(\/invitations\/)(?!accept(?:[?#/]|$))[^?#/]+/gi;

/** A URL fit for a log line: values of parameters that may carry secrets, and invitation tokens, are masked. */
export const redactUrl = (url: string) => url.replace(SECRET_QUERY_PARAMS, '$1[redacted]').replace(INVITATION_TOKEN_PATH, '$1[redacted]');

/** One readable line per entry, for a person at a terminal. Redaction has happened before it. */
export const prettyStream = (destination: NodeJS.WritableStream = process.stdout) =>
  pinoPretty({ destination, singleLine: true, colorize: destination === process.stdout && Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });

/** How long a JSON line may wait in the buffer before it is written. */
const FLUSH_EVERY_MS = 100;

/**
 * JSON lines to stdout, written 4 KB at a time or every 100 ms: a write for every line was a
 * tenth of a small request's CPU. Whatever is buffered is written when the process exits
 * (pino's exit handler); only a killed process loses its last 100 ms of lines.
 */
export function bufferedStdout() {
  const stream = pino.destination({ dest: 1, minLength: 4096, sync: false });
  setInterval(() => stream.flush(), FLUSH_EVERY_MS).unref();
  return stream;
}

export interface LoggerFormat {
  /** Pretty lines instead of JSON; by default when stdout is a terminal (a person reads it, not a collector). */
  pretty?: boolean;
  /** Where the lines go instead of stdout (tests). */
  stream?: NodeJS.WritableStream;
}

/**
 * pino with secrets kept out: headers that carry credentials and any field named like a secret
 * are censored, and request URLs lose the values of secret-bearing query parameters. JSON lines,
 * or pretty ones at a terminal.
 */
export function loggerOptions(level: string, { pretty = Boolean(process.stdout.isTTY), stream }: LoggerFormat = {}): FastifyServerOptions['logger'] {
  return {
    level,
    stream: stream ?? (pretty ? prettyStream() : bufferedStdout()),
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-hub-signature-256"]',
        'res.headers["set-cookie"]',
        '*.password',
        '*.oldPassword',
        '*.otp',
        '*.token',
        '*.apiKey',
        '*.accessToken',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: { method: string; url: string; ip?: string; id?: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}
