import type { Logger } from '../../lib/logger.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../lib/app-error.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import { isUuid } from '../../lib/ids.js';
import type { OrgAccess } from '../../services/org-access.js';
import type { OwnershipMoves } from '../../services/ownership-moves.js';
import type { ConnectInput } from './bitbucket-api-schemas.js';
import type { BitbucketAuth, BitbucketClient, BitbucketTarget } from './bitbucket-client.js';
import type { BitbucketConnectionRepository } from './bitbucket-connection-repository.js';
import { BitbucketApiError, BitbucketRateLimitedError, BitbucketUnreachableError } from './bitbucket-errors.js';
import { newHookSecret } from './bitbucket-signature.js';
import type { BitbucketConnection } from './bitbucket-tables.js';
import { BITBUCKET_EVENT_KEYS } from './bitbucket-webhook-schemas.js';

export interface BitbucketServiceDeps {
  connections: BitbucketConnectionRepository;
  client: BitbucketClient;
  secretBox: SecretBox;
  /** `PUBLIC_URL`: the webhook Bitbucket calls is `PUBLIC_URL/webhook/bitbucket`. */
  publicUrl: string;
  /** The webhook's cache of connections, told of every change made here. */
  webhookConnections: { forget(repositoryUuid: string): void; forgetConnection(connectionId: string): Promise<void> };
  log: Logger;
  access: OrgAccess;
  moves: OwnershipMoves;
}

/**
 * Bitbucket connections (decisions.md §16): a user's repository, reached with their token, with the
 * webhook the service creates there. What Bitbucket refuses is the caller's to fix, so it comes back
 * as a 400 carrying Bitbucket's own reason, and nothing is kept.
 */
export class BitbucketService {
  constructor(private readonly deps: BitbucketServiceDeps) {}

  async connect(userId: string, input: ConnectInput) {
    const { connections, client, secretBox } = this.deps;
    const orgId = input.orgId?.toLowerCase() ?? null;
    if (orgId !== null) await this.deps.access.require(orgId, userId, 'admin');
    const target: BitbucketTarget = { auth: authOf(input.token, input.email ?? null), workspace: input.workspace, repoSlug: input.repoSlug };
    const name = `${input.workspace}/${input.repoSlug}`;
    const repository = await refused(client.repository(target), `Bitbucket refused repository ${name}`);
    // Before the webhook exists, so a duplicate leaves nothing behind on Bitbucket.
    if ((await connections.findForRepository(userId, repository.uuid)) !== undefined) throw alreadyConnected(repository.full_name);
    const account = await refused(client.currentUser(target.auth), 'Bitbucket refused the API token');
    const commands = await refused(client.canReadPermissions(target), `Bitbucket refused to say who may write to ${repository.full_name}`);
    const secret = newHookSecret();
    const hook = await refused(
      client.createHook(target, { url: `${this.deps.publicUrl}/webhook/bitbucket`, secret, events: BITBUCKET_EVENT_KEYS, description: 'AI review' }),
      `Bitbucket refused to create the webhook on ${repository.full_name} (the token needs the Webhooks scope)`,
    );
    try {
      const row = await connections.create({
        userId,
        orgId,
        workspace: input.workspace,
        repoSlug: input.repoSlug,
        repositoryUuid: repository.uuid,
        fullName: repository.full_name,
        htmlUrl: repository.links.html.href,
        token: secretBox.encrypt(input.token),
        email: input.email ?? null,
        webhookSecret: secretBox.encrypt(secret),
        hookUuid: hook.uuid,
        commands,
        accountUuid: account?.uuid ?? null,
      });
      this.deps.webhookConnections.forget(row.repositoryUuid);
      return connectionView(row);
    } catch (error) {
      // Stored nowhere: the webhook just created would call with a secret nobody knows.
      await this.removeHook(target, hook.uuid);
      if (isUniqueViolation(error)) throw alreadyConnected(repository.full_name);
      throw error;
    }
  }

  async list(userId: string) {
    return (await this.deps.connections.listForUser(userId)).map((row) => ({ ...connectionView(row), status: row.status, reason: row.brokenReason }));
  }

  /** Moves a connection into or out of an organization with its pull requests (decisions.md §15). */
  async move(userId: string, id: string, orgId: string | null) {
    const { connections, moves } = this.deps;
    const known = await this.managed(userId, id);
    await moves.move({
      userId,
      target: orgId,
      action: 'connection.moved',
      label: (row: BitbucketConnection) => row.fullName,
      notFound: noSuchConnection,
      reload: (tx) => connections.lock(known.id, tx),
      apply: (tx) => connections.move(known.id, orgId?.toLowerCase() ?? null, userId, tx),
    });
    return connectionView((await connections.find(known.id))!);
  }

  /**
   * Removes the repository's webhook (best effort: a broken token or a gone repository cannot stop
   * it) and the connection. Whoever manages it may: its personal owner, or an admin of its organization.
   */
  async disconnect(userId: string, id: string): Promise<void> {
    const row = await this.managed(userId, id);
    await this.removeHook(this.target(row), row.hookUuid);
    await this.deps.connections.delete(row.id);
    // Its signature is refused from the next delivery on.
    this.deps.webhookConnections.forget(row.repositoryUuid);
  }

  /** Bitbucket refused the connection's token (401/403): it stays listed as broken, with Bitbucket's reason, until replaced. */
  async markBroken(connectionId: string, reason: string): Promise<void> {
    await this.deps.connections.setStatus(connectionId, { status: 'broken', brokenReason: reason });
    await this.deps.webhookConnections.forgetConnection(connectionId);
  }

  /** The repository and the decrypted credentials of a connection, for calls made on its behalf. */
  target(row: BitbucketConnection): BitbucketTarget {
    return { auth: authOf(this.deps.secretBox.decrypt(row.token), row.email), workspace: row.workspace, repoSlug: row.repoSlug };
  }

  /** The connection if the caller manages it; else 404, whether it exists or not. */
  private async managed(userId: string, id: string): Promise<BitbucketConnection> {
    const row = isUuid(id) ? await this.deps.connections.find(id.toLowerCase()) : undefined;
    await this.deps.moves.requireManages(row, userId, noSuchConnection);
    return row!;
  }

  private async removeHook(target: BitbucketTarget, hookUuid: string): Promise<void> {
    try {
      await this.deps.client.deleteHook(target, hookUuid);
    } catch (error) {
      this.deps.log.warn({ repository: `${target.workspace}/${target.repoSlug}`, hookUuid, error: (error as Error).message }, 'the Bitbucket webhook could not be removed');
    }
  }
}

/** Without an email the token is an access token (Bearer); with one, an Atlassian API token (Basic), facts §5. */
const authOf = (token: string, email: string | null): BitbucketAuth => (email === null ? { kind: 'access-token', token } : { kind: 'api-token', email, token });

const connectionView = (row: BitbucketConnection) => ({
  id: row.id,
  workspace: row.workspace,
  repoSlug: row.repoSlug,
  repository: { uuid: row.repositoryUuid, fullName: row.fullName, htmlUrl: row.htmlUrl },
  hookUuid: row.hookUuid,
  commands: row.commands,
  orgId: row.orgId,
  createdAt: row.createdAt.toISOString(),
});

const noSuchConnection = () => new AppError('NOT_FOUND', 'No such Bitbucket connection');
const alreadyConnected = (fullName: string) => new AppError('CONFLICT', `You already connected ${fullName}`);

/** A Bitbucket call made for the caller's request: Bitbucket's refusals are the caller's 400 with Bitbucket's reason. */
async function refused<T>(call: Promise<T>, what: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof BitbucketRateLimitedError) throw new AppError('UNAVAILABLE', 'Bitbucket asked to slow down; try again in a minute');
    if (error instanceof BitbucketApiError) throw new AppError('BAD_REQUEST', `${what}: ${error.message}`);
    if (error instanceof BitbucketUnreachableError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}
