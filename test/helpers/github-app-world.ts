import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { WorkerOptions } from '../../src/plugins/app/workers.js';
import { FakeGitHubApp, type FakeUser } from '../fakes/fake-github-app.js';
import type { ChatRequest, ScriptedReply } from '../fakes/fake-openai-chat.js';
import { reviewAnswer, type ReviewInformation, type ScriptedFinding } from './review-fixtures.js';
import { reviewWorld, type ReviewWorld } from './review-world.js';
import { examplePayload, signedDelivery } from './webhooks.js';

export const PUBLIC_URL = 'https://review.example.com';

export type AppWorld = ReviewWorld<FakeGitHubApp>;

/** The service as a GitHub App, with a fake GitHub that checks what GitHub checks. */
export function appWorld(workers?: WorkerOptions): Promise<AppWorld> {
  const github = new FakeGitHubApp();
  return reviewWorld({ ...github.env(), PUBLIC_URL }, github, workers);
}

/** Review prompts get `findings`; anything else (a chat) gets `chatAnswer`. */
export function appModel(findings: ScriptedFinding[], chatAnswer = 'The loop reads one element past the end of the array.') {
  return (request: ChatRequest): ScriptedReply => (JSON.stringify(request.body.messages).includes('Answer with one JSON object') ? { text: reviewAnswer(findings) } : { text: chatAnswer });
}

let nextRepo = 1_000 + Math.floor(Math.random() * 1_000_000);

export interface Repo {
  id: number;
  full_name: string;
}

export const newRepo = (): Repo => {
  const id = nextRepo++;
  return { id, full_name: `org-${id}/service` };
};

/** GitHub's delivery of an App event, signed. */
export async function deliver(app: FastifyInstance, event: string, payload: unknown, deliveryId: string = randomUUID()) {
  return app.inject(await signedDelivery(payload, { event, deliveryId }));
}

export function installationPayload(action: string, installationId: number, senderId: number, repositories: Repo[], account = { id: 900 + installationId, login: `org-${installationId}`, type: 'Organization' }) {
  return { action, installation: { id: installationId, account, repository_selection: 'selected' }, repositories, sender: { id: senderId, login: `user-${senderId}` } };
}

/** A pull_request event delivered through the installation. */
export function appPullRequest(installationId: number, repo: Repo, authorId: number, overrides: { action?: string; headSha?: string; number?: number; prId?: number; updatedAt?: string } = {}) {
  const payload = examplePayload({ authorId, repository: repo, ...overrides });
  return { ...payload, installation: { id: installationId } };
}

export const member = (login = 'maintainer'): FakeUser => ({ login, id: 7_000_001, type: 'User' });

export function commentPayload(installationId: number, repo: Repo, number: number, comment: { id: number; body: string; user: FakeUser }, association = 'MEMBER') {
  return {
    action: 'created',
    issue: { number, pull_request: { url: `https://api.github.com/repos/${repo.full_name}/pulls/${number}` } },
    comment: { id: comment.id, body: comment.body, user: comment.user, author_association: association },
    repository: repo,
    installation: { id: installationId },
  };
}

/** Polls the review until its publication satisfies `until`. */
export async function publication(app: FastifyInstance, cookie: string, prId: number, until: (review: ReviewInformation & { publication: Publication }) => boolean, timeoutMs = 20_000) {
  let latest: (ReviewInformation & { publication: Publication }) | undefined;
  await expect
    .poll(
      async () => {
        const response = await app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie } });
        latest = response.statusCode === 200 ? response.json<Array<ReviewInformation & { publication: Publication }>>()[0] : undefined;
        return latest;
      },
      { timeout: timeoutMs, interval: 50, message: `the publication of ${prId}` },
    )
    .toSatisfy((review: (ReviewInformation & { publication: Publication }) | undefined) => review !== undefined && until(review));
  return latest!;
}

export interface Publication {
  state: 'not_applicable' | 'pending' | 'published' | 'failed';
  reason: string | null;
  reviewUrl: string | null;
  summaryCommentUrl: string | null;
  checkRunUrl: string | null;
}
