import { defineConfig } from 'drizzle-kit';

// Generates the SQL migrations applied at start, the same files on PGlite and on PostgreSQL.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './src/db/migrations',
});
