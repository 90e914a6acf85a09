import { getJson, setJson } from '../../adapters/kv/key-value-store.js';
import type { BitbucketCommand } from '../../adapters/queue/job-queue.js';
import type { PullRequest } from '../../db/schema/index.js';
import type { CommandTarget } from '../code-host.js';
import { isServiceComment } from './bitbucket-bodies.js';
import type { BitbucketTarget } from './bitbucket-client.js';
import { BitbucketConnectionBrokenError } from './bitbucket-errors.js';
import { bitbucketJobFailure } from './bitbucket-failure.js';
import { bitbucketSession, serviceAccount, type BitbucketHostDeps } from './bitbucket-session.js';
import type { BitbucketConnection } from './bitbucket-tables.js';

/**
 * The name `/ask`'s other form answers to: `@ai-review <question>`. Bitbucket Cloud mentions people by
 * account id (`@{557058:…}`), and an access token is no one that can be mentioned, so there is no
 * handle of the connection's account to use; a fixed word reads the same on every connection and
 * notifies nobody. `/ask` is the form the help text puts first.
 */
export const BITBUCKET_MENTION = 'ai-review';

/** Who may command the service: an effective permission of `write` or `admin` (decisions.md §16). */
const COMMANDING = new Set(['write', 'admin']);
/** A permission is read again after this long: a removed collaborator stops commanding within minutes. */
const PERMISSION_CACHE_SECONDS = 5 * 60;

/**
 * Where a pull-request comment's command is answered, or undefined when it is none of the service's
 * business: a disconnected or broken connection, one whose token cannot read permissions (an access
 * token: fail closed, decisions.md §16), the connection's own account or a comment carrying the
 * service's markers, or an author whose effective permission on the repository is below `write`.
 */
export async function bitbucketCommandTarget(deps: BitbucketHostDeps, command: BitbucketCommand): Promise<CommandTarget | undefined> {
  const connection = await deps.connections.find(command.connectionId);
  if (connection === undefined || connection.status === 'broken' || !connection.commands || isServiceComment(command.body)) return undefined;
  const target = deps.target(connection);
  try {
    if (command.authorUuid === (await serviceAccount(deps, connection, target).uuid())) return undefined;
    if (!COMMANDING.has(await permissionOf(deps, connection, target, command.authorUuid))) return undefined;
  } catch (error) {
    if (error instanceof BitbucketConnectionBrokenError) await deps.markBroken(connection.id, error.message);
    throw bitbucketJobFailure(error);
  }
  const pr = await deps.pullRequests.findByPrId(await deps.connections.prIdOf(connection.id, command.number));
  const ref = { target, number: command.number, webUrl: pr?.htmlUrl ?? `${connection.htmlUrl}/pull-requests/${command.number}`, replyTo: command.commentId };
  return {
    session: bitbucketSession(deps, connection, ref),
    mention: BITBUCKET_MENTION,
    pr,
    findingOfReply: pr === undefined || command.parentId === null ? undefined : () => findingOfReply(deps, target, pr, command.number, command.parentId!),
  };
}

/** The author's effective permission (`none` when they hold none), cached a few minutes per repository and user. */
async function permissionOf(deps: BitbucketHostDeps, connection: BitbucketConnection, target: BitbucketTarget, userUuid: string): Promise<string> {
  const key = `bitbucket-permission:${connection.repositoryUuid}#${userUuid}`;
  const cached = await getJson<string>(deps.kv, key).catch(() => null);
  if (cached !== null) return cached;
  const permission = (await deps.client.permissionOf(target, userUuid)) ?? 'none';
  await setJson(deps.kv, key, permission, PERMISSION_CACHE_SECONDS).catch(() => undefined);
  return permission;
}

/**
 * The finding whose inline comment the verdict replies to: its parent's, or, when the parent is a
 * reply itself (Bitbucket nests replies), the thread's top comment's.
 */
async function findingOfReply(deps: BitbucketHostDeps, target: BitbucketTarget, pr: PullRequest, number: number, parentId: number): Promise<string | undefined> {
  const direct = await deps.publications.findingOfThread(pr.id, parentId);
  if (direct !== undefined) return direct.findingId;
  const comments = await deps.client.listComments(target, number);
  const byId = new Map(comments.map((comment) => [comment.id, comment]));
  let current = byId.get(parentId);
  for (let depth = 0; current?.parent && depth < comments.length; depth++) current = byId.get(current.parent.id);
  if (current === undefined || current.id === parentId) return undefined;
  return (await deps.publications.findingOfThread(pr.id, current.id))?.findingId;
}
