import type { FastifyBaseLogger } from 'fastify';
import type { GitLabClient, GitLabTarget } from './gitlab-client.js';
import { GitLabApiError, GitLabConnectionBrokenError, GitLabRateLimitedError, GitLabUnreachableError } from './gitlab-errors.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { GitLabConnection } from './gitlab-tables.js';
import { AppError } from '../../lib/app-error.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import { randomHex } from '../../lib/crypto/tokens.js';
import { isUuid } from '../../lib/ids.js';
import type { GitLabConnectionRepository } from './gitlab-connection-repository.js';
import type { OrgAccess } from '../../services/org-access.js';
import type { OwnershipMoves } from '../../services/ownership-moves.js';
import type { GitLabConnectionCache } from './gitlab-connection-cache.js';
import type { ConnectInput } from './gitlab-api-schemas.js';

export interface GitLabServiceDeps {
  connections: GitLabConnectionRepository;
  client: GitLabClient;
  secretBox: SecretBox;
  /** `PUBLIC_URL`: the webhook GitLab calls is `PUBLIC_URL/webhook/gitlab`. */
  publicUrl: string;
  /** The webhook's cache of connections, told of every change made here. */
  webhookConnections: Pick<GitLabConnectionCache, 'forgetProject' | 'forgetConnection'>;
  log: FastifyBaseLogger;
  access: OrgAccess;
  moves: OwnershipMoves;
}

/**
 * GitLab connections (decisions.md §12): a user's project, reached with their access token, with
 * the webhook the service creates there. What GitLab refuses is the caller's to fix, so it comes
 * back as a 400 carrying GitLab's own reason.
 */
export class GitLabService {
  constructor(private readonly deps: GitLabServiceDeps) {}

  async connect(userId: string, input: ConnectInput) {
    const { connections, client, secretBox } = this.deps;
    const target: GitLabTarget = { baseUrl: input.baseUrl, token: input.token };
    const orgId = input.orgId?.toLowerCase() ?? null;
    if (orgId !== null) await this.deps.access.require(orgId, userId, 'admin');
    const project = await refused(client.project(target, input.project), `GitLab refused project ${input.project}`);
    // Before the webhook exists, so a duplicate leaves nothing behind on GitLab.
    if ((await connections.findForProject(userId, input.baseUrl, project.id)) !== undefined) {
      throw new AppError('CONFLICT', `You already connected ${project.path_with_namespace}`);
    }
    const tokenUser = await refused(client.currentUser(target), 'GitLab refused the token');
    const secret = randomHex(32);
    const hook = await refused(
      client.createHook(target, project.id, { url: `${this.deps.publicUrl}/webhook/gitlab`, secret }),
      `GitLab refused to create the webhook on ${project.path_with_namespace} (the token needs the api scope and Maintainer access)`,
    );
    try {
      const row = await connections.create({
        userId,
        orgId,
        baseUrl: input.baseUrl,
        projectId: project.id,
        projectPath: project.path_with_namespace,
        projectWebUrl: project.web_url,
        token: secretBox.encrypt(input.token),
        webhookSecret: secretBox.encrypt(secret),
        hookId: hook.id,
        tokenUserId: tokenUser.id,
        tokenUsername: tokenUser.username,
      });
      this.deps.webhookConnections.forgetProject(row.projectId);
      return connectionView(row);
    } catch (error) {
      // Stored nowhere: the webhook just created would call with a secret nobody knows.
      await this.removeHook(target, project.id, hook.id);
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', `You already connected ${project.path_with_namespace}`);
      throw error;
    }
  }

  async list(userId: string) {
    return (await this.deps.connections.listForUser(userId)).map((row) => ({ ...connectionView(row), status: row.status, reason: row.brokenReason }));
  }

  /** Moves a connection into or out of an organization with its merge requests (decisions.md §15). */
  async move(userId: string, id: string, orgId: string | null) {
    const { connections, moves } = this.deps;
    // Checked before the target, so that someone who cannot see it learns nothing about it.
    const known = (await this.managed(userId, id)).id;
    await moves.move({
      userId,
      target: orgId,
      action: 'connection.moved',
      label: (row: GitLabConnection) => row.projectPath,
      notFound: noSuchConnection,
      reload: (tx) => connections.lock(known, tx),
      apply: (tx) => connections.move(known, orgId?.toLowerCase() ?? null, userId, tx),
    });
    return connectionView((await connections.find(known))!);
  }

  /**
   * Removes the project's webhook (best effort: a broken token or a gone project cannot stop it) and
   * the connection. Whoever manages it may (decisions.md §15): its personal owner, or an admin of its
   * organization; a member below admin gets 403, as for a move, anyone else 404.
   */
  async disconnect(userId: string, id: string): Promise<void> {
    const row = await this.managed(userId, id);
    await this.removeHook(this.target(row), row.projectId, row.hookId);
    await this.deps.connections.delete(row.id);
    // Its token is refused from the next delivery on (other processes: decisions.md §12).
    this.deps.webhookConnections.forgetProject(row.projectId);
  }

  /** GitLab refused the connection's token (401/403): it stays listed as broken, with GitLab's reason, until replaced. */
  async markBroken(connectionId: string, reason: string): Promise<void> {
    await this.deps.connections.setStatus(connectionId, { status: 'broken', brokenReason: reason });
    await this.deps.webhookConnections.forgetConnection(connectionId);
  }

  /** The instance and the decrypted token of a connection, for calls made on its behalf. */
  target(row: GitLabConnection): GitLabTarget {
    return { baseUrl: row.baseUrl, token: this.deps.secretBox.decrypt(row.token) };
  }

  /** The connection if the caller manages it; else 404 (403 for a member of its organization below admin), whether it exists or not. */
  private async managed(userId: string, id: string): Promise<GitLabConnection> {
    const row = isUuid(id) ? await this.deps.connections.find(id.toLowerCase()) : undefined;
    await this.deps.moves.requireManages(row, userId, noSuchConnection);
    return row!;
  }

  private async removeHook(target: GitLabTarget, projectId: number, hookId: number): Promise<void> {
    try {
      await this.deps.client.deleteHook(target, projectId, hookId);
    } catch (error) {
      this.deps.log.warn({ projectId, hookId, error: (error as Error).message }, 'the GitLab webhook could not be removed');
    }
  }
}

const connectionView = (row: GitLabConnection) => ({
  id: row.id,
  baseUrl: row.baseUrl,
  project: { id: row.projectId, pathWithNamespace: row.projectPath, webUrl: row.projectWebUrl },
  hookId: row.hookId,
  orgId: row.orgId,
  createdAt: row.createdAt.toISOString(),
});

const noSuchConnection = () => new AppError('NOT_FOUND', 'No such GitLab connection');

/** A GitLab call made for the caller's request: GitLab's refusals are the caller's 400 with GitLab's reason. */
async function refused<T>(call: Promise<T>, what: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof GitLabRateLimitedError) throw new AppError('UNAVAILABLE', `GitLab asked to wait ${Math.ceil(error.delayMs / 1000)} s; try again then`);
    if (error instanceof GitLabConnectionBrokenError || error instanceof GitLabApiError) throw new AppError('BAD_REQUEST', `${what}: ${error.message}`);
    if (error instanceof GitLabUnreachableError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}
