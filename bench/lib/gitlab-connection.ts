import { ACCESS, type FakeGitLab } from '../../test/fakes/fake-gitlab.js';
import { expectStatus } from './accounts.js';

/** A project of the fake GitLab connected to the service. */
export interface GitLabConnection {
  id: string;
  projectId: number;
  projectPath: string;
  /** The `X-Gitlab-Token` of the webhook the service created. */
  secret: string;
}

/**
 * A new project on the fake GitLab with a maintainer bot, connected through `POST
 * /gitlab/connections` as the signed-in `cookie`, as a user connects one.
 */
export async function connectGitLab(serviceUrl: string, cookie: string, gitlab: FakeGitLab, path: string, bot = { id: 90_001, username: 'bench-bot', name: 'Bench bot' }): Promise<GitLabConnection> {
  const project = gitlab.addProject(path);
  gitlab.addMember(project.id, bot, ACCESS.maintainer);
  const response = await fetch(`${serviceUrl}/gitlab/connections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(bot) }),
  });
  const { id } = (await (await expectStatus(response, 201, `connection of ${path}`)).json()) as { id: string };
  return { id, projectId: project.id, projectPath: project.path, secret: project.hooks[0]!.token! };
}
