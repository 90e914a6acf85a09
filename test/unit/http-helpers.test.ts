import { describe, expect, it } from 'vitest';
import { isUnavailable, isUniqueViolation } from '../../src/db/errors.js';
import { AppError, errorBody } from '../../src/lib/app-error.js';
import { redactUrl } from '../../src/lib/logger-options.js';
import { parseUserAgent } from '../../src/lib/user-agent.js';

describe('user agents', () => {
  it('parses browser, os and platform', () => {
    expect(parseUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36')).toEqual({
      browser: 'Chrome 120',
      os: 'Windows 10',
      platform: 'desktop',
    });
    expect(parseUserAgent('Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1')?.platform).toBe('tablet');
    expect(parseUserAgent('curl/8.0')).toEqual({ browser: null, os: null, platform: null });
    expect(parseUserAgent(undefined)).toBeNull();
  });
});

describe('log redaction', () => {
  it('masks secret-bearing query parameters', () => {
    expect(redactUrl('/auth/codehost/callback?code=abc123&state=s3cr3t&x=1')).toBe('/auth/codehost/callback?code=[redacted]&state=[redacted]&x=1');
    expect(redactUrl('/pull-request/list?search=code')).toBe('/pull-request/list?search=code');
  });
});

describe('errors', () => {
  it('maps codes to statuses and the documented body', () => {
    expect(new AppError('PAYMENT_REQUIRED', 'Add a key').toBody()).toEqual({ statusCode: 402, error: 'Payment Required', message: 'Add a key' });
    expect(errorBody(422, 'Wrong event')).toEqual({ statusCode: 422, error: 'Unprocessable Entity', message: 'Wrong event' });
  });

  it('recognizes unique violations and unavailable dependencies through causes', () => {
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isUniqueViolation(new Error('Failed query', { cause: unique }))).toBe(true);
    expect(isUniqueViolation(new Error('other'))).toBe(false);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(isUnavailable(new Error('Failed query', { cause: refused }))).toBe(true);
    expect(isUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isUnavailable(new Error('syntax error'))).toBe(false);
  });
});
