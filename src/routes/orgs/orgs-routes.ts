import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, noContent } from '../common-schemas.js';
import {
  auditQuery,
  auditResponse,
  changeRoleBody,
  createOrgBody,
  invitationParams,
  invitationResponse,
  inviteBody,
  memberParams,
  memberResponse,
  orgParams,
  organizationResponse,
  updateOrgBody,
} from './orgs-schemas.js';

/** Organizations, their members, invitations and audit log (decisions.md §15). A non-member gets 404 on every path. */
const orgsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { organizations, invitations, auditLog, orgAccess } = app.services;
  const tags = ['organizations'];

  app.post(
    '/',
    { schema: { tags, summary: 'Create an organization; you are its owner', body: createOrgBody, response: { 201: organizationResponse, ...errorResponses(400, 401) } } },
    async (request, reply) => reply.code(201).send(await organizations.create(requireSession(request).userId, request.body)),
  );

  app.get(
    '/',
    { schema: { tags, summary: 'Your organizations, with your role in each', response: { 200: z.array(organizationResponse), ...errorResponses(401) } } },
    async (request) => organizations.list(requireSession(request).userId),
  );

  app.get(
    '/:orgId',
    { schema: { tags, summary: 'An organization you are in', params: orgParams, response: { 200: organizationResponse, ...errorResponses(401, 404) } } },
    async (request) => organizations.get(request.params.orgId, requireSession(request).userId),
  );

  app.patch(
    '/:orgId',
    {
      schema: {
        tags,
        summary: 'Rename, or set the monthly spend limit (admin+)',
        params: orgParams,
        body: updateOrgBody,
        response: { 200: organizationResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => organizations.update(request.params.orgId, requireSession(request).userId, request.body),
  );

  app.delete(
    '/:orgId',
    { schema: { tags, summary: 'Delete the organization and everything it holds (owner)', params: orgParams, response: { 204: noContent, ...errorResponses(401, 403, 404) } } },
    async (request, reply) => {
      await organizations.delete(request.params.orgId, requireSession(request).userId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:orgId/members',
    { schema: { tags, summary: 'The members and their roles', params: orgParams, response: { 200: z.array(memberResponse), ...errorResponses(401, 404) } } },
    async (request) => organizations.members(request.params.orgId, requireSession(request).userId),
  );

  app.patch(
    '/:orgId/members/:userId',
    {
      schema: {
        tags,
        summary: "Change a member's role (admin+; owners only for owners)",
        params: memberParams,
        body: changeRoleBody,
        response: { 200: memberResponse, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => organizations.changeRole(request.params.orgId, requireSession(request).userId, request.params.userId, request.body.role),
  );

  /**
   * Removing one thing of the organization (a member, an invitation): the service checks who may,
   * then 204. One piece for both, so the two stay alike.
   */
  const removal = <P extends typeof memberParams | typeof invitationParams>(
    path: string,
    summary: string,
    params: P,
    errors: number[],
    remove: (params: z.output<P>, callerId: string) => Promise<void>,
  ) =>
    app.delete(path, { schema: { tags, summary, params, response: { 204: noContent, ...errorResponses(...errors) } } }, async (request, reply) => {
      await remove(request.params as z.output<P>, requireSession(request).userId);
      return reply.code(204).send(null);
    });

  removal('/:orgId/members/:userId', 'Remove a member (admin+), or leave (your own id)', memberParams, [401, 403, 404, 409], ({ orgId, userId }, callerId) =>
    organizations.removeMember(orgId, callerId, userId),
  );

  app.post(
    '/:orgId/invitations',
    {
      schema: {
        tags,
        summary: 'Invite by email (admin+; only owners invite owners)',
        description: 'Emails a link holding a single-use token valid 7 days. A new invitation to the same address replaces its pending one.',
        params: orgParams,
        body: inviteBody,
        response: { 201: invitationResponse, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.code(201).send(await invitations.invite(request.params.orgId, requireSession(request).userId, request.body)),
  );

  app.get(
    '/:orgId/invitations',
    { schema: { tags, summary: 'Pending invitations (admin+)', params: orgParams, response: { 200: z.array(invitationResponse), ...errorResponses(401, 403, 404) } } },
    async (request) => invitations.pending(request.params.orgId, requireSession(request).userId),
  );

  removal('/:orgId/invitations/:id', 'Revoke a pending invitation (admin+)', invitationParams, [401, 403, 404], ({ orgId, id }, callerId) => invitations.revoke(orgId, callerId, id));

  app.get(
    '/:orgId/audit',
    {
      schema: {
        tags,
        summary: 'Who changed what, newest first, 20 a page (admin+)',
        description: 'Pass the previous page\'s `nextCursor` as `cursor` for the next page; it is null on the last one.',
        params: orgParams,
        querystring: auditQuery,
        response: { 200: auditResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { orgId } = request.params;
      await orgAccess.require(orgId, requireSession(request).userId, 'admin');
      return auditLog.page(orgId, request.query.cursor);
    },
  );
};

export default orgsRoutes;
