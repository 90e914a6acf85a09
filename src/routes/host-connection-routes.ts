import type { FastifyInstance, FastifyPluginAsync, FastifySchema } from 'fastify';
import type { z } from 'zod';
import { requireSession } from '../plugins/app/authentication.js';
import { connectionParams, errorResponses, moveBody, noContent } from './common-schemas.js';

/** What a host's connections offer its owner (decisions.md §12, §15, §16): the rules are the host's service's. */
export interface HostConnections<Input, Item, List> {
  connect(userId: string, input: Input): Promise<Item>;
  list(userId: string): Promise<List>;
  move(userId: string, id: string, orgId: string | null): Promise<Item>;
  disconnect(userId: string, id: string): Promise<void>;
}

export interface HostConnectionRoutes<Body extends z.ZodType, Item extends z.ZodType, List extends z.ZodType> {
  /** The OpenAPI tag: the host's prefix without its slash. */
  tag: string;
  /** The host's name, for the summaries. */
  host: string;
  connections: (app: FastifyInstance) => HostConnections<z.output<Body>, z.output<Item>, z.output<List>>;
  schemas: { connectBody: Body; connectionResponse: Item; connectionListResponse: List };
  /** What the host connects (`project`, `repository`), for the summaries. */
  what: string;
  connectDescription: string;
}

/**
 * The four routes of a host whose repositories are connected with a token (GitLab, Bitbucket):
 * connect, list, move between spaces, disconnect. One set of routes; each host brings its schemas
 * and its service.
 */
export function hostConnectionRoutes<Body extends z.ZodType, Item extends z.ZodType, List extends z.ZodType>(spec: HostConnectionRoutes<Body, Item, List>): FastifyPluginAsync {
  const { tag, host, what, schemas } = spec;
  // Typed at the spec's boundary: a route's types cannot follow a schema that is a type parameter,
  // so the schemas are plain `FastifySchema`s (still validating and serializing) and the handlers cast.
  type Params = z.output<typeof connectionParams>;
  const schema = (value: FastifySchema) => value;
  return async (app) => {
    const connections = spec.connections(app);
    const tags = [tag];

    app.post(
      '/connections',
      {
        schema: schema({
          tags,
          summary: `Connect a ${host} ${what}`,
          description: spec.connectDescription,
          body: schemas.connectBody,
          response: { 201: schemas.connectionResponse, ...errorResponses(400, 401, 403, 404, 409, 503) },
        }),
      },
      async (request, reply) => reply.code(201).send(await connections.connect(requireSession(request).userId, request.body as z.output<Body>)),
    );

    app.get(
      '/connections',
      { schema: schema({ tags, summary: `Your ${host} connections and your organizations', with their status`, response: { 200: schemas.connectionListResponse, ...errorResponses(401) } }) },
      async (request) => connections.list(requireSession(request).userId),
    );

    app.patch(
      '/connections/:id',
      {
        schema: schema({
          tags,
          summary: 'Move a connection into or out of an organization',
          description:
            'Its pull requests, reviews and learnings move with it (decisions.md §15). The caller manages it (its personal owner, or an admin or owner of its organization) and is an admin or owner of the target organization.',
          params: connectionParams,
          body: moveBody,
          response: { 200: schemas.connectionResponse, ...errorResponses(400, 401, 403, 404) },
        }),
      },
      async (request) => connections.move(requireSession(request).userId, (request.params as Params).id, (request.body as z.output<typeof moveBody>).orgId),
    );

    app.delete(
      '/connections/:id',
      {
        schema: schema({
          tags,
          summary: `Disconnect a ${host} ${what} (its webhook is removed, best effort)`,
          description: 'Its personal owner, or an admin or owner of its organization, may disconnect it; its pull requests and reviews stay.',
          params: connectionParams,
          response: { 204: noContent, ...errorResponses(401, 403, 404) },
        }),
      },
      async (request, reply) => {
        await connections.disconnect(requireSession(request).userId, (request.params as Params).id);
        return reply.code(204).send(null);
      },
    );
  };
}
