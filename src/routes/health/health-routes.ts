import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const healthResponse = z.object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), z.enum(['ok', 'down'])).optional() });

const CHECK_TIMEOUT_MS = 2_000;

async function probe(check: () => Promise<void>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const config = { auth: 'public' as const };
  const tags = ['health'];

  app.get('/healthz', { config, schema: { tags, summary: 'The process is up', response: { 200: healthResponse } } }, async () => ({ status: 'ok' as const }));

  app.get(
    '/readyz',
    { config, schema: { tags, summary: 'Database, store and queue are reachable', response: { 200: healthResponse, 503: healthResponse } } },
    async (_request, reply) => {
      const [database, store, queue] = await Promise.all([probe(() => app.database.ping()), probe(() => app.kv.ping()), probe(() => app.queue.ping())]);
      const checks = { database, store, queue };
      const ready = Object.values(checks).every((state) => state === 'ok');
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );
};

export default healthRoutes;
