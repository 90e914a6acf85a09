import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { organization, personal } from '../domain/owners.js';
import { requireSession } from '../plugins/app/authentication.js';
import type { Space } from '../services/space-audit.js';

/**
 * Which space a router serves (decisions.md §15): the caller's own (`/workspace`, `/byok`,
 * `/usage`), or the organization of the path's `:orgId` (`/orgs/:orgId/workspace` and so on). The
 * twins are the same router registered twice with a different `space`.
 */
export interface SpaceOptions {
  space: 'personal' | 'organization';
}

const spaces = new WeakMap<FastifyRequest, Space>();

/**
 * Resolves the request's space before validation: a non-member gets 404 whatever the body, a
 * member 403 for a write (admin+). Reads (GET) are for every member. The role is read on every
 * request, so a change holds from the next one.
 */
export function resolveSpace(app: FastifyInstance, options: SpaceOptions): void {
  app.addHook('onRequest', async (request) => {
    const { userId } = requireSession(request);
    if (options.space === 'personal') {
      spaces.set(request, { owner: personal(userId), userId });
      return;
    }
    const { orgId } = request.params as { orgId: string };
    const reads = request.method === 'GET' || request.method === 'HEAD';
    await app.services.orgAccess.require(orgId, userId, reads ? 'member' : 'admin');
    spaces.set(request, { owner: organization(orgId.toLowerCase()), userId });
  });
}

/** The space `resolveSpace` found for the request. */
export function spaceOf(request: FastifyRequest): Space {
  const space = spaces.get(request);
  if (space === undefined) throw new Error('resolveSpace is not registered on this router');
  return space;
}

const orgIdParam = z.string().max(64).meta({ description: 'The organization' });

/** A route's params schema, with the organization's `orgId` when the router serves one (checked before validation: 404 for a non-member). */
export function spaceParams<T extends z.ZodObject>(options: SpaceOptions, params: T): { params: T } {
  return { params: options.space === 'personal' ? params : (params.extend({ orgId: orgIdParam }) as unknown as T) };
}

/** The params of a route that has none of its own: the organization's `orgId` in a twin, nothing else. */
export function orgIdOnly(options: SpaceOptions): { params?: z.ZodObject } {
  return options.space === 'personal' ? {} : { params: z.object({ orgId: orgIdParam }) };
}
