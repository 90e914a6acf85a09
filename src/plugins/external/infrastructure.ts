import { join } from 'node:path';
import fp from 'fastify-plugin';
import { GitHubClient } from '../../adapters/github/github-client.js';
import type { KeyValueStore } from '../../adapters/kv/key-value-store.js';
import { MemoryKeyValueStore } from '../../adapters/kv/memory-key-value-store.js';
import { RedisKeyValueStore } from '../../adapters/kv/redis-key-value-store.js';
import type { Mailer } from '../../adapters/mail/mailer.js';
import { OutboxMailer } from '../../adapters/mail/outbox-mailer.js';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.js';
import { BullMqJobQueue } from '../../adapters/queue/bullmq-job-queue.js';
import type { JobQueue, RetryPolicies } from '../../adapters/queue/job-queue.js';
import { PostgresJobQueue } from '../../adapters/queue/postgres-job-queue.js';
import { closeRedis, createRedisConnection } from '../../adapters/redis-connection.js';
import type { AppConfig } from '../../config/config.js';
import { openDatabase } from '../../db/database.js';
import { SecretBox } from '../../lib/crypto/secret-box.js';
import { waitWithProgress } from '../../lib/wait-with-progress.js';
import { ServiceSettingsRepository } from '../../repositories/service-settings-repository.js';
import { ensureOneEncryptionKey } from '../../services/encryption-key-guard.js';
import { GitHubAppRegistry } from '../../services/github-app-registry.js';

/** Knobs that are not configuration: tests and benchmarks use them to isolate and speed up runs. */
export interface InfrastructureOptions {
  /** A migrated PGlite data directory to start from, in memory. */
  pgliteTemplate?: Blob;
  queue?: { retry?: Partial<RetryPolicies>; pollIntervalMs?: number; leaseMs?: number; shutdownGraceMs?: number };
  /** A migrations folder of the test's own (a slow migration, for the start that must wait). */
  migrationsFolder?: string;
  /** How often a slow start says it is still waiting. */
  progressEveryMs?: number;
}

/**
 * The external tier: database, key-value store, queue, mail and GitHub, each chosen by configuration
 * (embedded defaults, or PostgreSQL, Redis, BullMQ and SMTP), and closed in reverse order.
 */
export default fp<{ config: AppConfig; infrastructure?: InfrastructureOptions }>(
  async (app, { config, infrastructure = {} }) => {
    // As long as it takes: migrations on a large table can run for minutes (Fastify's pluginTimeout is off).
    const database = await waitWithProgress(
      app.log,
      'opening the database and applying migrations',
      openDatabase({ url: config.databaseUrl, poolSize: config.databasePoolSize, dataDir: config.dataDir, pgliteTemplate: infrastructure.pgliteTemplate, migrationsFolder: infrastructure.migrationsFolder }),
      infrastructure.progressEveryMs,
    );
    try {
      await ensureOneEncryptionKey(new ServiceSettingsRepository(database.db), config.encryptionKey);
    } catch (error) {
      await database.close();
      throw error;
    }
    const prefix = config.redisKeyPrefix;
    const redis = config.redisUrl === undefined ? undefined : createRedisConnection({ url: config.redisUrl, keyPrefix: prefix });
    const kv: KeyValueStore = redis === undefined ? new MemoryKeyValueStore() : new RedisKeyValueStore(redis);
    const queueLog = app.log.child({ component: 'queue' });
    const queue: JobQueue =
      config.redisUrl === undefined
        ? new PostgresJobQueue({ db: database.db, log: queueLog, ...infrastructure.queue })
        : new BullMqJobQueue({
            url: config.redisUrl,
            prefix: `${prefix}bull`,
            log: queueLog,
            retry: infrastructure.queue?.retry,
            shutdownGraceMs: infrastructure.queue?.shutdownGraceMs,
          });
    const mailLog = app.log.child({ component: 'mail' });
    const mailer: Mailer =
      config.mail.smtpUrl === undefined
        ? new OutboxMailer(join(config.dataDir, 'outbox'), config.mail.from, mailLog)
        : new SmtpMailer(config.mail.smtpUrl, config.mail.from, mailLog);

    app.decorate('config', config);
    app.decorate('database', database);
    app.decorate('db', database.db);
    app.decorate('redis', redis);
    app.decorate('kv', kv);
    app.decorate('queue', queue);
    app.decorate('mailer', mailer);
    const secretBox = new SecretBox(config.encryptionKey);
    app.decorate('secretBox', secretBox);
    app.decorate('github', new GitHubClient({ webUrl: config.github.url, apiUrl: config.github.apiUrl }));
    const githubApps = new GitHubAppRegistry({ config, settings: new ServiceSettingsRepository(database.db), secretBox, log: app.log.child({ component: 'github-app' }) });
    await githubApps.fresh();
    githubApps.watch();
    app.decorate('githubApps', githubApps);

    app.addHook('onClose', async () => {
      githubApps.close();
      // Workers first, so running jobs can still reach the database while they finish.
      await queue.close();
      await mailer.close();
      await kv.close();
      if (redis !== undefined) await closeRedis(redis);
      await database.close();
    });
    app.log.info(
      { database: database.kind, store: redis === undefined ? 'memory' : 'redis', queue: queue.kind, mail: mailer.kind, role: config.role },
      'infrastructure ready',
    );
  },
  { name: 'infrastructure' },
);
