import { z } from 'zod';

/** One entry of PLATFORM_MODELS: prices are USD per million tokens. */
export const platformModelSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  contextLength: z.number().int().positive(),
  inputPrice: z.number().nonnegative(),
  outputPrice: z.number().nonnegative(),
});
export type PlatformModel = z.infer<typeof platformModelSchema>;

export const DEFAULT_PLATFORM_MODELS: PlatformModel[] = [
  { id: 'gpt-4o-mini', name: 'GPT-4o mini', contextLength: 128_000, inputPrice: 0.15, outputPrice: 0.6 },
];

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const optionalHttpUrl = optionalString.pipe(httpUrl.optional());

const urlWithDefault = (fallback: string) =>
  optionalString.transform((value) => value ?? fallback).pipe(httpUrl);

const jsonArray = optionalString.transform((value, ctx) => {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON array' });
    return z.NEVER;
  }
});

/**
 * The process environment as decisions.md §3 defines it. Every variable is validated here, once,
 * and nowhere else reads process.env.
 */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  ROLE: z.enum(['api', 'worker', 'all']).default('all'),
  PORT: z.coerce.number({ error: 'must be a number' }).int().min(0).max(65_535, 'must be a port number').default(3000),
  HOST: optionalString.transform((value) => value ?? '127.0.0.1'),
  PUBLIC_URL: optionalHttpUrl,
  DATA_DIR: optionalString.transform((value) => value ?? './data'),
  DATABASE_URL: optionalString.pipe(
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  ),
  /** Not in decisions.md: connections each process may open to PostgreSQL (its pool's size). */
  DATABASE_POOL_SIZE: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').max(1000).default(20),
  REDIS_URL: optionalString.pipe(z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional()),
  /** Not in decisions.md: a namespace for every key, so deployments (or test runs) can share one Redis. */
  REDIS_KEY_PREFIX: optionalString.pipe(z.string().regex(/^[\w:.-]{0,64}$/, 'may hold letters, digits and _ : . - (64 at most)').optional()),
  ENCRYPTION_KEY: optionalString,
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// URL' }).optional()),
  EMAIL_FROM: optionalString.transform((value) => value ?? 'PR Review <no-reply@localhost>'),
  GITHUB_WEBHOOK_SECRET: optionalString,
  GITHUB_URL: urlWithDefault('https://github.com'),
  GITHUB_API_URL: urlWithDefault('https://api.github.com'),
  BITBUCKET_API_URL: urlWithDefault('https://api.bitbucket.org/2.0'),
  GITHUB_CLIENT_ID: optionalString,
  GITHUB_CLIENT_SECRET: optionalString,
  GITHUB_TOKEN: optionalString,
  GITHUB_APP_ID: optionalString.pipe(z.string().regex(/^\d+$/, 'must be the numeric App id').optional()),
  GITHUB_APP_PRIVATE_KEY: optionalString,
  GITHUB_APP_PRIVATE_KEY_FILE: optionalString,
  /** decisions.md §13: the operators' emails, comma-separated; unset, the first account on the database. */
  OPERATOR_EMAILS: optionalString.transform((value) => (value === undefined ? [] : value.split(',').map((email) => email.trim().toLowerCase()).filter(Boolean))).pipe(z.array(z.email({ error: 'must be email addresses, comma-separated' }))),
  GITHUB_APP_SLUG: optionalString.pipe(z.string().regex(/^[a-z0-9][a-z0-9-]{0,99}$/i, "must be the App's URL name (letters, digits and -)").optional()),
  PLATFORM_AI_BASE_URL: optionalHttpUrl,
  PLATFORM_AI_API_KEY: optionalString,
  PLATFORM_MODELS: jsonArray.pipe(z.array(platformModelSchema).min(1, 'must list at least one model').optional()),
  FREE_ALLOWANCE_USD: z.coerce.number({ error: 'must be a number' }).nonnegative().default(0.3),
  BYOK_OPENAI_BASE_URL: urlWithDefault('https://api.openai.com/v1'),
  BYOK_ANTHROPIC_BASE_URL: urlWithDefault('https://api.anthropic.com/v1'),
  BYOK_GOOGLE_BASE_URL: urlWithDefault('https://generativelanguage.googleapis.com/v1beta'),
  BYOK_OPENROUTER_BASE_URL: urlWithDefault('https://openrouter.ai/api/v1'),
  /** Not in decisions.md: whether user-supplied base URLs may point at loopback and private networks. */
  BYOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true').transform((value) => value === 'true'),
  AUTH_RATE_LIMIT_PER_MIN: z.coerce.number({ error: 'must be a number' }).int().positive().default(20),
  /** Not in decisions.md: behind a load balancer, `true` or the proxies' addresses/CIDRs, comma-separated. */
  TRUST_PROXY: optionalString.transform((value): boolean | string => (value === undefined || value === 'false' ? false : value === 'true' ? true : value)),
  /** Not in decisions.md: a file whose diff is larger is skipped as too large, unless `.ai-review.yml` includes it. */
  REVIEW_MAX_FILE_DIFF_BYTES: z.coerce.number({ error: 'must be a number' }).int().positive().default(1_048_576),
  /** decisions.md §11: the unpacked size of a repository snapshot read from its archive; over it, files are fetched one by one. */
  REVIEW_SNAPSHOT_MAX_BYTES: z.coerce.number({ error: 'must be a number' }).int().positive().default(200 * 1024 * 1024),
  /** Not in decisions.md: where repository snapshots are cached (default `DATA_DIR/snapshots`). */
  REVIEW_SNAPSHOT_DIR: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Not in decisions.md: the bearer token a Prometheus scraper sends to GET /metrics; unset, no metrics are served. */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Not in decisions.md: a listener of its own for /metrics, e.g. for ROLE=worker, which serves no HTTP otherwise. */
  METRICS_PORT: z.coerce.number({ error: 'must be a number' }).int().min(0).max(65_535, 'must be a port number').optional(),
});

export type Env = z.infer<typeof envSchema>;
