import { FakeGitLab, type FakeDiffEntry } from '../../test/fakes/fake-gitlab.js';
import { withCleanup } from '../lib/cleanup.js';
import { connectGitLab } from '../lib/gitlab-connection.js';
import { FINDINGS, FINDINGS_PATH, measurePublications, NEW_FILE_HUNK, publicationDone, publicationStep, publishingService, reportPublishing, type Publication, type PublishingFigures } from '../lib/host-publishing.js';
import type { Backend } from '../lib/service-process.js';

/** The new file of 30 lines, as GitLab's diffs API lists it. */
const ENTRY: FakeDiffEntry = { old_path: FINDINGS_PATH, new_path: FINDINGS_PATH, a_mode: '0', b_mode: '100644', diff: NEW_FILE_HUNK, new_file: true, renamed_file: false, deleted_file: false };

/**
 * Publishing a review of 25 findings on GitLab (decisions.md §12): merge requests arrive through
 * `POST /webhook/gitlab`, `concurrency` at a time. A publication's step is the interval on the
 * fake GitLab from its first read of the merge request's discussions to the end of its last call
 * (the summary note or the commit status, posted side by side): reading back, 25 discussions, the
 * summary note and the status. The fake records each request's arrival and the end of its answer;
 * the union of those intervals is the fake host's time, and the step minus it is the service's own
 * time (as the GitHub bench reports). The fake runs in this process: a request that arrives while
 * it is busy is stamped late, and the wait counts as the service's. This process's event-loop delay
 * is reported beside, to show how much that can be (about one delay per round trip; four round
 * trips per publication).
 */
export function gitlabPublishing(backend: Backend, { concurrency = 10, rounds = 3, root }: { concurrency?: number; rounds?: number; root?: string } = {}): Promise<PublishingFigures> {
  return withCleanup(async (defer) => {
    const gitlab = await new FakeGitLab().start();
    defer(() => gitlab.stop());
    const { service, cookie } = await publishingService(backend, defer, { root, email: 'gitlab-bench@example.com' });
    const project = await connectGitLab(service.url, cookie, gitlab, 'bench/service');
    const author = { id: 90_002, username: 'bench-dev', name: 'Dev' };

    let iid = 1;
    const publishOne = async (): Promise<Publication> => {
      const number = iid++;
      const head = number.toString(16).padStart(40, '0');
      gitlab.openMergeRequest(project.projectId, number, { author, diffRefs: { base_sha: 'b'.repeat(40), start_sha: 'b'.repeat(40), head_sha: head }, diffs: [ENTRY] });
      const hook = {
        object_kind: 'merge_request',
        user: { id: author.id, username: author.username },
        project: { id: project.projectId, path_with_namespace: project.projectPath, web_url: `${gitlab.url}/${project.projectPath}` },
        object_attributes: { id: 500_000 + number, iid: number, title: `Bench ${number}`, state: 'opened', action: 'open', source_branch: `b${number}`, target_branch: 'main', author_id: author.id, url: `${gitlab.url}/${project.projectPath}/-/merge_requests/${number}`, last_commit: { id: head } },
      };
      const response = await fetch(`${service.url}/webhook/gitlab`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': project.secret }, body: JSON.stringify(hook) });
      if (response.status !== 200) throw new Error(`delivery refused: ${response.status} ${await response.text()}`);
      const prefix = `/api/v4/projects/${project.projectId}/`;
      const discussions = `${prefix}merge_requests/${number}/discussions`;
      return publicationDone(() => {
        if (!gitlab.project(project.projectId).statuses.some((status) => status.sha === head && status.status !== 'running')) return undefined;
        const calls = gitlab.requests.filter((request) => request.path.startsWith(prefix) && (request.path.includes(`/merge_requests/${number}/`) || request.path.endsWith(`/statuses/${head}`)));
        // The summary note may be posted beside the status: the step ends when both are answered.
        if (!calls.some((request) => request.method === 'POST' && request.path.endsWith(`/merge_requests/${number}/notes`)) || calls.some((request) => Number.isNaN(request.endedAt))) return undefined;
        const posted = calls.filter((request) => request.method === 'POST' && request.path === discussions).length;
        if (posted !== FINDINGS) throw new Error(`!${number}: ${posted} discussions posted, not ${FINDINGS}`);
        return publicationStep(calls, calls.find((request) => request.method === 'GET' && request.path === discussions)!);
      });
    };

    return measurePublications(publishOne, { concurrency, rounds });
  });
}

export async function gitlabPublishingBench(backend: Backend, concurrency = 10, rounds = 3) {
  reportPublishing(`gitlab-publishing [${backend}]`, 'GitLab', concurrency, await gitlabPublishing(backend, { concurrency, rounds }));
}
