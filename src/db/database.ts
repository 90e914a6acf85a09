import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { pgliteStatements } from './pglite-statements.js';
import * as schema from './schema/index.js';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction offers the same query API as the database. */
export type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /**
   * A hot statement by name: PostgreSQL parses it once per connection (and plans it once, when a
   * generic plan serves) instead of on every call; the empty name parses and plans it each time.
   * For the few statements whose overhead is a real share of their cost.
   */
  prepared<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent, PGlite in `dataDir/pglite`. */
  url: string | undefined;
  dataDir: string;
  /** A dumped, already migrated PGlite data directory to start from in memory (tests). */
  pgliteTemplate?: Blob;
  poolSize?: number;
  /** Migrations to apply; the project's own unless a test brings a folder of its own. */
  migrationsFolder?: string;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));
// Any constant works; it only has to be the same in every process migrating this database.
const MIGRATION_LOCK_ID = 727_001;

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  // 20 per process: a chat holds a few short queries while it streams, and 50 at once queued on 10.
  const migrationsFolder = options.migrationsFolder ?? MIGRATIONS_FOLDER;
  return options.url === undefined ? openPglite(options, migrationsFolder) : openPostgres(options.url, options.poolSize ?? 20, migrationsFolder);
}

/** The extensions the migrations create (title search); PGlite ships them as bundles loaded at open. */
export const PGLITE_EXTENSIONS = { pg_trgm, btree_gin };

async function openPglite(options: DatabaseOptions, migrationsFolder: string): Promise<DatabaseHandle> {
  let client: PGlite;
  if (options.pgliteTemplate) {
    client = await PGlite.create({ loadDataDir: options.pgliteTemplate, extensions: PGLITE_EXTENSIONS });
  } else {
    const dir = join(options.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    client = await PGlite.create(dir, { extensions: PGLITE_EXTENSIONS });
  }
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  await migratePglite(db as never, { migrationsFolder });
  return {
    db,
    kind: 'pglite',
    prepared: pgliteStatements(client),
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

async function openPostgres(url: string, poolSize: number, migrationsFolder: string): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its server emits 'error'; without a listener that kills the process.
  pool.on('error', () => undefined);
  const db = drizzlePg(pool, { schema }) as unknown as Database;
  const lock = await pool.connect();
  try {
    // Several processes may start together; one migrates, the others wait and then find nothing to do.
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(db as never, { migrationsFolder });
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    lock.release();
  }
  return {
    db,
    kind: 'postgres',
    prepared: async <T>(name: string, text: string, values: unknown[]) => (await pool.query<T & pg.QueryResultRow>({ name, text, values })).rows,
    ping: async () => {
      await pool.query('select 1');
    },
    close: () => pool.end(),
  };
}

/** Rows of a raw query; both drivers answer with `{rows}`. */
export async function queryRows<T>(db: Executor, query: SQL): Promise<T[]> {
  const result: { rows: T[] } = await db.execute<Record<string, unknown>>(query).then((value) => value as never);
  return result.rows;
}
