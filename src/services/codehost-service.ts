import { setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import { GitHubApiError, type GitHubClient, type GitHubUser, type OAuthClient, type UserToken } from '../adapters/github/github-client.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { User } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import { randomHex } from '../lib/crypto/tokens.js';
import type { GitHubInstallationRepository } from '../repositories/github-installation-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { SessionInfo, SessionService } from './session-service.js';
import { sealUserToken } from './user-token.js';

const STATE_TTL_SECONDS = 10 * 60;
// Private repositories' diffs need `repo`; the profile and the private email need the other two.
const SCOPE = 'read:user user:email repo';

interface OAuthState {
  /** Set when a signed-in user started the flow to link GitHub to their account. */
  linkUserId: string | null;
}

export interface CodehostServiceDeps {
  db: Database;
  github: GitHubClient;
  users: UserRepository;
  /** Installations of the GitHub App made by this GitHub id before its person registered become theirs (decisions.md §8). */
  installations: GitHubInstallationRepository;
  sessions: SessionService;
  kv: KeyValueStore;
  secretBox: SecretBox;
  publicUrl: string;
  /** The OAuth app of GITHUB_CLIENT_ID/SECRET, else the GitHub App's client (decisions.md §13); undefined: not configured. */
  oauthClient: () => Promise<OAuthClient | undefined>;
}

export type CallbackOutcome = { kind: 'linked' } | { kind: 'signed-in'; token: string };

/** Sign in with GitHub, or link GitHub to the signed-in account (decisions.md §5). */
export class CodehostService {
  private readonly redirectUri: string;

  constructor(private readonly deps: CodehostServiceDeps) {
    this.redirectUri = `${deps.publicUrl}/auth/codehost/callback`;
  }

  /** The GitHub authorization URL, with a single-use state remembered for ten minutes. */
  async start(session: Pick<SessionInfo, 'userId'> | null): Promise<string> {
    const client = await this.requireConfigured();
    const state = randomHex(32);
    await setJson(this.deps.kv, stateKey(state), { linkUserId: session?.userId ?? null } satisfies OAuthState, STATE_TTL_SECONDS);
    return this.deps.github.authorizeUrl(client, state, this.redirectUri, SCOPE);
  }

  /** Whether Sign in with GitHub is available (the sign-in page shows its link only then). */
  async configured(): Promise<boolean> {
    return (await this.deps.oauthClient()) !== undefined;
  }

  async callback(input: { code: string; state: string }, session: Pick<SessionInfo, 'userId'> | null, userAgent: string | undefined): Promise<CallbackOutcome> {
    const client = await this.requireConfigured();
    const raw = await this.deps.kv.take(stateKey(input.state));
    if (raw === null) throw new AppError('BAD_REQUEST', 'The sign-in link has expired or was already used; start again');
    const state = JSON.parse(raw) as OAuthState;

    const token = await this.deps.github.exchangeCode(client, input.code, this.redirectUri).catch(refusedCode);
    const profile = await this.deps.github.getUser(token.accessToken);
    const email = (profile.email ?? (await this.deps.github.getPrimaryEmail(token.accessToken)))?.toLowerCase() ?? null;

    if (state.linkUserId !== null) {
      if (session?.userId !== state.linkUserId) throw new AppError('UNAUTHORIZED', 'Sign in to the account you are linking, then start again');
      await this.link(state.linkUserId, profile, token);
      return { kind: 'linked' };
    }
    const user = await this.signInOrCreate(profile, email, token);
    const { token: sessionToken } = await this.deps.sessions.create(user.id, userAgent);
    return { kind: 'signed-in', token: sessionToken };
  }

  private async link(userId: string, profile: GitHubUser, token: UserToken): Promise<void> {
    const holder = await this.deps.users.findByCodehostId(profile.id);
    if (holder !== undefined && holder.id !== userId) throw new AppError('CONFLICT', 'This GitHub account is linked to another user');
    await this.saveIdentity(userId, profile, token);
  }

  private async signInOrCreate(profile: GitHubUser, email: string | null, token: UserToken): Promise<User> {
    const existing = await this.deps.users.findByCodehostId(profile.id);
    if (existing !== undefined) {
      if (!existing.isActive) throw new AppError('FORBIDDEN', 'This account is disabled');
      return this.saveIdentity(existing.id, profile, token);
    }
    // An email account is never taken over by a GitHub sign-in: its owner links GitHub while signed in.
    const address = email ?? `${profile.id}+${profile.login}@users.noreply.github.com`.toLowerCase();
    if (await this.deps.users.findByEmail(address)) {
      throw new AppError('CONFLICT', 'An account with this email already exists: sign in with your password and link GitHub from there');
    }
    try {
      return await this.deps.db.transaction(async (tx) => {
        await this.deps.users.releaseStaleUsername(profile.login, profile.id, tx);
        const user = await this.deps.users.create(
          {
            name: (profile.name?.trim() || profile.login).slice(0, 56),
            email: address,
            // GitHub gives only a verified primary email; the noreply stand-in proves nothing.
            emailVerified: email !== null,
            loginMethod: 'codehost',
            codehostUserId: profile.id,
            codehostUsername: profile.login,
            ...sealUserToken(this.deps.secretBox, token),
            lastLoginAt: new Date(),
          },
          tx,
        );
        await this.deps.installations.claim(user.id, profile.id, tx);
        return user;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'This GitHub account or email is already in use; try again');
      throw error;
    }
  }

  private async saveIdentity(userId: string, profile: GitHubUser, token: UserToken): Promise<User> {
    return this.deps.db.transaction(async (tx) => {
      await this.deps.users.releaseStaleUsername(profile.login, profile.id, tx);
      const user = await this.deps.users.update(
        userId,
        { codehostUserId: profile.id, codehostUsername: profile.login, ...sealUserToken(this.deps.secretBox, token), lastLoginAt: new Date() },
        tx,
      );
      if (user === undefined) throw new AppError('UNAUTHORIZED', 'The account no longer exists');
      await this.deps.installations.claim(user.id, profile.id, tx);
      return user;
    });
  }

  private async requireConfigured(): Promise<OAuthClient> {
    const client = await this.deps.oauthClient();
    if (client === undefined) {
      throw new AppError('UNAVAILABLE', 'Sign in with GitHub is not configured (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, or a GitHub App created on /settings/github)');
    }
    return client;
  }
}

const stateKey = (state: string) => `oauth-state:${state}`;

function refusedCode(error: unknown): never {
  if (error instanceof GitHubApiError) throw new AppError('BAD_REQUEST', `GitHub refused the sign-in: ${error.message}`);
  throw error;
}
