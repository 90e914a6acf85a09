import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
  /** Connections this process may hold to PostgreSQL (unused embedded). */
  databasePoolSize: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  encryptionKey: Buffer;
  mail: { smtpUrl: string | undefined; from: string };
  /** decisions.md §13: `OPERATOR_EMAILS`, lowercase; empty means the first account on the database. */
  operatorEmails: string[];
  github: {
    webhookSecret: string | undefined;
    url: string;
    apiUrl: string;
    clientId: string | undefined;
    clientSecret: string | undefined;
    token: string | undefined;
    /** decisions.md §8: the GitHub App, when all of its variables are set. */
    app: GitHubAppConfig | undefined;
  };
  /** decisions.md §16: Bitbucket Cloud's REST API (one service: no per-connection address). */
  bitbucket: { apiUrl: string };
  platformAi: { baseUrl: string | undefined; apiKey: string | undefined; models: PlatformModel[] };
  freeAllowanceUsd: number;
  byokBaseUrls: { openai: string; anthropic: string; google: string; openrouter: string };
  byokAllowPrivateNetworks: boolean;
  authRateLimitPerMin: number;
  trustProxy: boolean | string;
  logLevel: string;
  reviewMaxFileDiffBytes: number;
  /** decisions.md §11: the snapshot cache's folder and the archive size over which files are read one by one. */
  reviewSnapshot: { dir: string; maxBytes: number };
  /** `/metrics`: the scraper's bearer token (unset: not served) and an optional listener of its own. */
  metrics: { token: string | undefined; port: number | undefined };
}

export interface GitHubAppConfig {
  id: string;
  privateKey: string;
  slug: string;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** All three App variables or none; the key from the variable (with `\n` escapes) or from its file. */
function githubApp(env: { GITHUB_APP_ID?: string; GITHUB_APP_PRIVATE_KEY?: string; GITHUB_APP_PRIVATE_KEY_FILE?: string; GITHUB_APP_SLUG?: string }): GitHubAppConfig | undefined {
  if (env.GITHUB_APP_PRIVATE_KEY !== undefined && env.GITHUB_APP_PRIVATE_KEY_FILE !== undefined) {
    throw new ConfigError('GITHUB_APP_PRIVATE_KEY_FILE', 'set either GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, not both');
  }
  const hasKey = env.GITHUB_APP_PRIVATE_KEY !== undefined || env.GITHUB_APP_PRIVATE_KEY_FILE !== undefined;
  const present = { GITHUB_APP_ID: env.GITHUB_APP_ID !== undefined, GITHUB_APP_PRIVATE_KEY: hasKey, GITHUB_APP_SLUG: env.GITHUB_APP_SLUG !== undefined };
  const missing = Object.entries(present).filter(([, set]) => !set).map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) throw new ConfigError(missing[0]!, 'must be set together with the other GITHUB_APP_* variables (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, GITHUB_APP_SLUG)');
  let privateKey: string;
  if (env.GITHUB_APP_PRIVATE_KEY_FILE !== undefined) {
    try {
      privateKey = readFileSync(env.GITHUB_APP_PRIVATE_KEY_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError('GITHUB_APP_PRIVATE_KEY_FILE', `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else {
    privateKey = env.GITHUB_APP_PRIVATE_KEY!.replaceAll('\\n', '\n');
  }
  privateKey = privateKey.trim();
  if (!/^-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]+-----END (RSA )?PRIVATE KEY-----$/.test(privateKey)) {
    throw new ConfigError(env.GITHUB_APP_PRIVATE_KEY_FILE === undefined ? 'GITHUB_APP_PRIVATE_KEY' : 'GITHUB_APP_PRIVATE_KEY_FILE', 'must be the App\'s PEM private key');
  }
  return { id: env.GITHUB_APP_ID!, privateKey: `${privateKey}\n`, slug: env.GITHUB_APP_SLUG! };
}

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

  const app = githubApp(env);

  const dataDir = resolve(env.DATA_DIR);
  return {
    nodeEnv: env.NODE_ENV,
    role: env.ROLE,
    port: env.PORT,
    host: env.HOST,
    publicUrl: trimSlash(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`),
    dataDir,
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    encryptionKey: resolveEncryptionKey(env.ENCRYPTION_KEY, dataDir, production),
    mail: { smtpUrl: env.SMTP_URL, from: env.EMAIL_FROM },
    operatorEmails: env.OPERATOR_EMAILS,
    github: {
      webhookSecret: env.GITHUB_WEBHOOK_SECRET,
      url: trimSlash(env.GITHUB_URL),
      apiUrl: trimSlash(env.GITHUB_API_URL),
      clientId: env.GITHUB_CLIENT_ID,
      clientSecret: env.GITHUB_CLIENT_SECRET,
      token: env.GITHUB_TOKEN,
      app,
    },
    bitbucket: { apiUrl: trimSlash(env.BITBUCKET_API_URL) },
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
    reviewSnapshot: { dir: resolve(env.REVIEW_SNAPSHOT_DIR ?? join(dataDir, 'snapshots')), maxBytes: env.REVIEW_SNAPSHOT_MAX_BYTES },
    metrics: { token: env.METRICS_TOKEN, port: env.METRICS_PORT },
  };
}
