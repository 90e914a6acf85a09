import type { FastifyServerOptions } from 'fastify';

const SECRET_QUERY_PARAMS = /([?&](?:code|state|token|otp|key|password|access_token)=)[^&#]*/gi;

/** A URL fit for a log line: values of parameters that may carry secrets are masked. */
export const redactUrl = (url: string) => url.replace(SECRET_QUERY_PARAMS, '$1[redacted]');

/**
 * pino with secrets kept out: headers that carry credentials and any field named like a secret
 * are censored, and request URLs lose the values of secret-bearing query parameters.
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
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
