import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { resolveEncryptionKey } from './encryption-key.js';
import { DEFAULT_PLATFORM_MODELS, envSchema, type PlatformModel } from './env-schema.js';

export type Role = 'api' | 'worker' | 'all';

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  role: Role;
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  encryptionKey: Buffer;
  mail: { smtpUrl: string | undefined; from: string };
  github: {
    webhookSecret: string | undefined;
    url: string;
    apiUrl: string;
    clientId: string | undefined;
    clientSecret: string | undefined;
    token: string | undefined;
  };
  platformAi: { baseUrl: string | undefined; apiKey: string | undefined; models: PlatformModel[] };
  freeAllowanceUsd: number;
  byokBaseUrls: { openai: string; anthropic: string; google: string; openrouter: string };
  byokAllowPrivateNetworks: boolean;
  authRateLimitPerMin: number;
  trustProxy: boolean | string;
  logLevel: string;
  reviewMaxFileDiffBytes: number;
  /** `/metrics`: the scraper's bearer token (unset: not served) and an optional listener of its own. */
  metrics: { token: string | undefined; port: number | undefined };
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Validates the environment once; any bad value throws a ConfigError naming the variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [variable, ...rest] = issue.path.map(String);
    const where = rest.length > 0 ? ` at ${rest.map((key) => (/^\d+$/.test(key) ? `[${key}]` : `.${key}`)).join('')}` : '';
    throw new ConfigError(variable ?? 'environment', `${issue.message}${where}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';

  if (production && env.GITHUB_WEBHOOK_SECRET === undefined) {
    throw new ConfigError('GITHUB_WEBHOOK_SECRET', 'is required when NODE_ENV=production');
  }
  // PGlite lives inside one process, so a split deployment needs a database server both sides reach.
  if (env.ROLE !== 'all' && env.DATABASE_URL === undefined) {
    throw new ConfigError('ROLE', `${env.ROLE} needs DATABASE_URL: the embedded database cannot be shared between processes`);
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_TOKEN === undefined) {
    throw new ConfigError('METRICS_PORT', 'needs METRICS_TOKEN: metrics are served only to a scraper that sends it');
  }
  if ((env.GITHUB_CLIENT_ID === undefined) !== (env.GITHUB_CLIENT_SECRET === undefined)) {
    throw new ConfigError('GITHUB_CLIENT_SECRET', 'must be set together with GITHUB_CLIENT_ID');
  }

  const dataDir = resolve(env.DATA_DIR);
  return {
    nodeEnv: env.NODE_ENV,
    role: env.ROLE,
    port: env.PORT,
    host: env.HOST,
    publicUrl: trimSlash(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`),
    dataDir,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    encryptionKey: resolveEncryptionKey(env.ENCRYPTION_KEY, dataDir, production),
    mail: { smtpUrl: env.SMTP_URL, from: env.EMAIL_FROM },
    github: {
      webhookSecret: env.GITHUB_WEBHOOK_SECRET,
      url: trimSlash(env.GITHUB_URL),
      apiUrl: trimSlash(env.GITHUB_API_URL),
      clientId: env.GITHUB_CLIENT_ID,
      clientSecret: env.GITHUB_CLIENT_SECRET,
      token: env.GITHUB_TOKEN,
    },
    platformAi: {
      baseUrl: env.PLATFORM_AI_BASE_URL === undefined ? undefined : trimSlash(env.PLATFORM_AI_BASE_URL),
      apiKey: env.PLATFORM_AI_API_KEY,
      models: env.PLATFORM_MODELS ?? DEFAULT_PLATFORM_MODELS,
    },
    freeAllowanceUsd: env.FREE_ALLOWANCE_USD,
    byokBaseUrls: {
      openai: trimSlash(env.BYOK_OPENAI_BASE_URL),
      anthropic: trimSlash(env.BYOK_ANTHROPIC_BASE_URL),
      google: trimSlash(env.BYOK_GOOGLE_BASE_URL),
      openrouter: trimSlash(env.BYOK_OPENROUTER_BASE_URL),
    },
    byokAllowPrivateNetworks: env.BYOK_ALLOW_PRIVATE_NETWORKS,
    authRateLimitPerMin: env.AUTH_RATE_LIMIT_PER_MIN,
    trustProxy: env.TRUST_PROXY,
    logLevel: env.LOG_LEVEL,
    reviewMaxFileDiffBytes: env.REVIEW_MAX_FILE_DIFF_BYTES,
    metrics: { token: env.METRICS_TOKEN, port: env.METRICS_PORT },
  };
}
