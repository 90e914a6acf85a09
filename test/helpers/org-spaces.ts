import { FakeAiProvider } from '../fakes/fake-ai-providers.js';
import { createAccount, type Account } from './accounts.js';
import { callAs, createOrg, type Method } from './orgs.js';
import { createTestApp } from './test-app.js';

/** The organization-spaces suites' world: the API, a fake OpenAI for the keys, one organization and its owner. */
export async function orgSpacesWorld(orgName: string) {
  const openai = await FakeAiProvider.start('openai');
  const t = await createTestApp({ role: 'api', env: { BYOK_OPENAI_BASE_URL: openai.url } });
  const lead = await createAccount(t.app, t.outbox, { name: 'Lead' });
  const org = await createOrg(t.app, lead, orgName);
  return {
    t,
    openai,
    lead,
    org,
    call: (account: Account, method: Method, url: string, payload?: object) => callAs(t.app, account.cookie, method, url, payload),
    close: async () => {
      await t.close();
      await openai.stop();
    },
  };
}

export type OrgSpacesWorld = Awaited<ReturnType<typeof orgSpacesWorld>>;
