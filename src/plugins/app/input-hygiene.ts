import fp from 'fastify-plugin';
import { errorBody } from '../../lib/app-error.js';
import { findRefusedString, REFUSED_CHARACTERS_MESSAGE } from '../../lib/text-hygiene.js';

const PARTS = ['params', 'query', 'body'] as const;

/**
 * decisions.md §7 for every route at once: a path parameter, query value or body string (or key)
 * holding NUL or an unpaired surrogate is a 400 naming the field, before any schema or handler
 * sees it. A route that must keep such data (GitHub's payloads) says `rawStrings: true` and
 * sanitizes what it derives itself.
 */
export default fp(
  async (app) => {
    app.addHook('preValidation', async (request, reply) => {
      for (const part of PARTS) {
        if (part === 'body' && request.routeOptions.config.rawStrings === true) continue;
        const found = findRefusedString(request[part]);
        if (found === undefined) continue;
        const path = found === '' ? part : `${part}.${found}`;
        return reply.code(400).send(errorBody(400, `Invalid ${part}: ${path} ${REFUSED_CHARACTERS_MESSAGE}`, [{ path, message: REFUSED_CHARACTERS_MESSAGE }]));
      }
    });
  },
  { name: 'input-hygiene' },
);
