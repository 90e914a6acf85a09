import { bitbucketUser, type FakeBitbucket, type FakeBitbucketUser } from '../../test/fakes/fake-bitbucket.js';
import { expectStatus } from './accounts.js';

/** A repository of the fake Bitbucket Cloud connected to the service. */
export interface BitbucketConnection {
  id: string;
  fullName: string;
  /** Bitbucket's repository UUID, in braces: what a delivery names its repository by. */
  repositoryUuid: string;
  /** The secret of the webhook the service created: deliveries are signed with it. */
  secret: string;
  /** Without braces, as `X-Hook-UUID` carries it. */
  hookUuid: string;
  /** The repository's admin, whose Atlassian API token the connection holds. */
  admin: FakeBitbucketUser;
}

/**
 * A new repository `workspace/slug` on the fake Bitbucket with an admin, connected through
 * `POST /bitbucket/connections` as the signed-in `cookie` with the admin's API token, as a user
 * connects one (commands available). The service must run with `BITBUCKET_API_URL` on the fake.
 */
export async function connectBitbucket(serviceUrl: string, cookie: string, bitbucket: FakeBitbucket, fullName: string): Promise<BitbucketConnection> {
  const repository = bitbucket.addRepository(fullName);
  const admin = bitbucketUser('Bench Admin');
  bitbucket.setPermission(fullName, admin, 'admin');
  const credentials = bitbucket.issueApiToken(admin, `${admin.nickname}@example.com`);
  const [workspace, repoSlug] = fullName.split('/');
  const response = await fetch(`${serviceUrl}/bitbucket/connections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ workspace, repoSlug, ...credentials }),
  });
  const { id, hookUuid } = (await (await expectStatus(response, 201, `connection of ${fullName}`)).json()) as { id: string; hookUuid: string };
  const hook = repository.hooks.find((candidate) => candidate.uuid === hookUuid);
  if (hook === undefined || hook.secret === null) throw new Error(`the service created no signed webhook on ${fullName}`);
  return { id, fullName, repositoryUuid: repository.uuid, secret: hook.secret, hookUuid: hookUuid.replace(/[{}]/g, ''), admin };
}
