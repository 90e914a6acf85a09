import { defineConfig } from 'drizzle-kit';

// Generates the SQL migrations applied at start, the same files on PGlite and on PostgreSQL.
// A code host's own tables live in its folder (`src/code-hosts/<host>/<host>-tables.ts`).
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/schema/index.ts', './src/code-hosts/*/*-tables.ts'],
  out: './src/db/migrations',
});
