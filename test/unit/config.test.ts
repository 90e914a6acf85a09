import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

/** One directory for the file, removed at the end; each loadConfig gets a fresh DATA_DIR inside it. */
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'config-test-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dataDir = () => mkdtempSync(join(root, 'data-'));
const KEY = 'ab'.repeat(32);

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(config).toMatchObject({
      role: 'all',
      port: 3000,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      redisUrl: undefined,
      freeAllowanceUsd: 0.3,
      authRateLimitPerMin: 20,
      logLevel: 'info',
      reviewMaxFileDiffBytes: 1_048_576,
      github: { url: 'https://github.com', apiUrl: 'https://api.github.com', webhookSecret: undefined },
      byokBaseUrls: { openai: 'https://api.openai.com/v1', openrouter: 'https://openrouter.ai/api/v1' },
    });
    expect(config.platformAi.models).toHaveLength(1);
    expect(loadConfig({ DATA_DIR: dataDir(), PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ROLE: 'both' }, 'ROLE'],
    [{ ROLE: 'worker' }, 'ROLE'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://localhost' }, 'REDIS_URL'],
    [{ PUBLIC_URL: 'ftp://example.com' }, 'PUBLIC_URL'],
    [{ ENCRYPTION_KEY: 'too-short' }, 'ENCRYPTION_KEY'],
    [{ PLATFORM_MODELS: 'not json' }, 'PLATFORM_MODELS'],
    [{ PLATFORM_MODELS: '[{"id":"m"}]' }, 'PLATFORM_MODELS'],
    [{ PLATFORM_MODELS: '[]' }, 'PLATFORM_MODELS'],
    [{ FREE_ALLOWANCE_USD: '-1' }, 'FREE_ALLOWANCE_USD'],
    [{ AUTH_RATE_LIMIT_PER_MIN: '0' }, 'AUTH_RATE_LIMIT_PER_MIN'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ DATABASE_POOL_SIZE: 'many' }, 'DATABASE_POOL_SIZE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GITHUB_CLIENT_ID: 'id-only' }, 'GITHUB_CLIENT_SECRET'],
    [{ NODE_ENV: 'production', ENCRYPTION_KEY: KEY }, 'GITHUB_WEBHOOK_SECRET'],
    [{ NODE_ENV: 'production', GITHUB_WEBHOOK_SECRET: 's' }, 'ENCRYPTION_KEY'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ METRICS_PORT: '9464' }, 'METRICS_PORT'],
    [{ METRICS_TOKEN: 'a-long-enough-scraper-token', METRICS_PORT: 'ninety' }, 'METRICS_PORT'],
  ])('refuses %o with a message naming %s', (env, variable) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(new RegExp(`^Invalid configuration: ${variable}: `));
  });

  it('reads prices and models from PLATFORM_MODELS', () => {
    const models = [{ id: 'm1', name: 'Model 1', contextLength: 32000, inputPrice: 1, outputPrice: 2 }];
    expect(loadConfig({ DATA_DIR: dataDir(), PLATFORM_MODELS: JSON.stringify(models) }).platformAi.models).toEqual(models);
  });

  it('accepts a hex or base64 ENCRYPTION_KEY', () => {
    const hex = loadConfig({ DATA_DIR: dataDir(), ENCRYPTION_KEY: KEY }).encryptionKey;
    const base64 = loadConfig({ DATA_DIR: dataDir(), ENCRYPTION_KEY: Buffer.from(KEY, 'hex').toString('base64') }).encryptionKey;
    expect(hex.equals(base64)).toBe(true);
  });

  it('generates a key once into DATA_DIR with mode 0600, and reuses it', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).encryptionKey;
    const file = join(dir, 'encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(first.toString('hex'));
    expect(loadConfig({ DATA_DIR: dir }).encryptionKey.equals(first)).toBe(true);
  });

  it('serves metrics only with a token, on a port of their own when asked', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).metrics).toEqual({ token: undefined, port: undefined });
    expect(loadConfig({ DATA_DIR: dataDir(), METRICS_TOKEN: 'a-long-enough-scraper-token', METRICS_PORT: '9464' }).metrics).toEqual({
      token: 'a-long-enough-scraper-token',
      port: 9464,
    });
  });

  it('splits roles only on a database server', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ROLE: 'api', DATABASE_URL: 'postgres://localhost/db' }).role).toBe('api');
  });
});
