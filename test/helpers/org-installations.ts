import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { pullRequests } from '../../src/db/schema/index.js';
import { ACCESS, type FakeGitLab } from '../fakes/fake-gitlab.js';
import { callAs } from './orgs.js';

/** The organization of every stored pull request of a repository (GitHub: its full name; GitLab: its project id). */
export async function orgsOfRepository(app: FastifyInstance, repository: { name?: string; id?: string }) {
  const where = repository.name !== undefined ? eq(pullRequests.repositoryName, repository.name) : eq(pullRequests.repositoryId, repository.id!);
  return app.db.select({ orgId: pullRequests.orgId, userId: pullRequests.userId }).from(pullRequests).where(where);
}

let counter = 0;

/** A GitLab project of its own with a maintainer's token, connected by `cookie` (with `orgId` when given): the 201's body and the hook's secret. */
export async function gitlabConnected(app: FastifyInstance, gitlab: FakeGitLab, cookie: string, orgId?: string | null) {
  counter++;
  const maintainer = { id: 30_000 + counter + Math.floor(Math.random() * 10_000), username: `orgm${counter}`, name: 'M' };
  const project = gitlab.addProject(`org-hooks-${counter}-${Math.random().toString(36).slice(2, 8)}/app`);
  gitlab.addMember(project.id, maintainer, ACCESS.maintainer);
  const response = await callAs(app, cookie, 'POST', '/gitlab/connections', { baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(maintainer), ...(orgId === undefined ? {} : { orgId }) });
  return { response, project };
}

/** GitLab's documented merge request event for `project`'s merge request `iid`, delivered through its connection's webhook. */
export function deliverMergeRequest(app: FastifyInstance, gitlab: FakeGitLab, project: { id: number; path: string }, iid: number) {
  const hook = JSON.parse(readFileSync(new URL('../fixtures/gitlab/merge-request-hook.json', import.meta.url), 'utf8')) as { project: object; object_attributes: object };
  hook.project = { ...hook.project, id: project.id, path_with_namespace: project.path, web_url: `${gitlab.url}/${project.path}` };
  hook.object_attributes = { ...hook.object_attributes, iid, target_project_id: project.id, source_project_id: project.id };
  return app.inject({
    method: 'POST',
    url: '/webhook/gitlab',
    headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': randomUUID(), 'x-gitlab-token': gitlab.project(project.id).hooks.at(-1)!.token! },
    payload: JSON.stringify(hook),
  });
}

export const expectStatus = (response: { statusCode: number; body: string }, status: number) => expect(response.statusCode, response.body).toBe(status);
