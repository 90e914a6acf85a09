import type { GitLabTarget } from './gitlab-client.js';
import { GitLabConnectionBrokenError } from './gitlab-errors.js';
import { getJson, setJson, type KeyValueStore } from '../../adapters/kv/key-value-store.js';
import type { GitLabCommand } from '../../adapters/queue/job-queue.js';
import type { PullRequest } from '../../db/schema/index.js';
import type { GitLabConnection } from './gitlab-tables.js';
import type { CommandTarget } from '../code-host.js';
import type { PublicationRepository } from '../../repositories/publication-repository.js';
import type { GitLabMergeRequestRepository } from './gitlab-merge-request-repository.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import { gitlabJobFailure } from './gitlab-failure.js';
import { gitlabSession, type GitLabHostDeps } from './gitlab-session.js';

/** GitLab's Developer access level: the least that may command the service (decisions.md §12). */
export const DEVELOPER_ACCESS = 30;
/** Whether a user is a bot does not change: kept a day. */
const BOT_CACHE_SECONDS = 24 * 60 * 60;

export interface GitLabCommandDeps extends GitLabHostDeps {
  connections: { find(id: string): Promise<GitLabConnection | undefined> };
  mergeRequests: GitLabMergeRequestRepository;
  pullRequests: Pick<PullRequestRepository, 'findByPrId'>;
  publications: Pick<PublicationRepository, 'findingOfThread'>;
  target: (connection: GitLabConnection) => GitLabTarget;
  kv: KeyValueStore;
}

/**
 * Where a merge-request note's command is answered, or undefined when it is none of the service's
 * business: a disconnected or broken connection, the token's own user, a bot (`GET /users/:id`,
 * cached), or someone below Developer access on the project (`GET /projects/:id/members/all/:user`).
 */
export async function gitlabCommandTarget(deps: GitLabCommandDeps, command: GitLabCommand): Promise<CommandTarget | undefined> {
  const connection = await deps.connections.find(command.connectionId);
  if (connection === undefined || connection.status === 'broken' || command.authorId === connection.tokenUserId) return undefined;
  const target = deps.target(connection);
  try {
    if (await isBot(deps, connection, target, command.authorId)) return undefined;
    if (((await deps.client.accessLevel(target, connection.projectId, command.authorId)) ?? 0) < DEVELOPER_ACCESS) return undefined;
  } catch (error) {
    if (error instanceof GitLabConnectionBrokenError) await deps.markBroken(connection.id, error.message);
    throw gitlabJobFailure(error);
  }
  const pr = await deps.pullRequests.findByPrId(await deps.mergeRequests.prIdOf(connection.id, command.iid));
  const mr = {
    target,
    projectId: connection.projectId,
    iid: command.iid,
    webUrl: pr?.htmlUrl ?? `${connection.projectWebUrl}/-/merge_requests/${command.iid}`,
    tokenUserId: connection.tokenUserId,
  };
  return {
    session: gitlabSession(deps, connection.id, mr),
    mention: connection.tokenUsername,
    pr,
    findingOfReply: pr === undefined ? undefined : () => findingOfReply(deps, mr, pr, command),
  };
}

async function isBot(deps: GitLabCommandDeps, connection: GitLabConnection, target: GitLabTarget, userId: number): Promise<boolean> {
  const key = `gitlab-bot:${connection.baseUrl}#${userId}`;
  const cached = await getJson<boolean>(deps.kv, key).catch(() => null);
  if (cached !== null) return cached;
  const bot = (await deps.client.user(target, userId)).bot === true;
  await setJson(deps.kv, key, bot, BOT_CACHE_SECONDS).catch(() => undefined);
  return bot;
}

/** The finding whose discussion the note replies in: its `discussion_id`, else found among the merge request's discussions. */
async function findingOfReply(deps: GitLabCommandDeps, mr: { target: GitLabTarget; projectId: number; iid: number }, pr: PullRequest, command: GitLabCommand): Promise<string | undefined> {
  const discussions = await deps.client.listDiscussions(mr.target, mr.projectId, mr.iid);
  const discussion = discussions.find((candidate) => (command.discussionId ? candidate.id === command.discussionId : candidate.notes.some((note) => note.id === command.commentId)));
  const first = discussion?.notes[0];
  if (first === undefined || first.id === command.commentId) return undefined;
  return (await deps.publications.findingOfThread(pr.id, first.id))?.findingId;
}
