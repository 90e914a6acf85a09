import { FakeBitbucket } from '../../test/fakes/fake-bitbucket.js';
import { connectBitbucket } from '../lib/bitbucket-connection.js';
import { withCleanup } from '../lib/cleanup.js';
import { FINDINGS, FINDINGS_PATH, measurePublications, NEW_FILE_HUNK, publicationDone, publicationStep, publishingService, reportPublishing, type Publication, type PublishingFigures } from '../lib/host-publishing.js';
import type { Backend } from '../lib/service-process.js';

/** The new file of 30 lines, as Bitbucket serves a pull request's diff (git's, after its redirect). */
const DIFF = `diff --git a/${FINDINGS_PATH} b/${FINDINGS_PATH}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/${FINDINGS_PATH}\n${NEW_FILE_HUNK}`;
const BASE = 'b'.repeat(40);

/**
 * Publishing a review of 25 findings on Bitbucket Cloud (decisions.md §16), the twin of
 * `gitlab-publishing`: pull requests arrive as signed `pullrequest:created` deliveries on
 * `POST /webhook/bitbucket`, `concurrency` at a time. A publication's step is the interval on the
 * fake Bitbucket from its first read of the pull request's comments to the end of its last call:
 * reading the comments back and the diff (where inline comments may go), 25 inline comments, the
 * summary comment and the build status. The fake's own time is the union of those calls'
 * intervals, and the step minus it is the service's own time; the fake runs in this process, so
 * its event-loop delay is reported beside, as `gitlab-publishing` does.
 */
export function bitbucketPublishing(backend: Backend, { concurrency = 10, rounds = 3, root }: { concurrency?: number; rounds?: number; root?: string } = {}): Promise<PublishingFigures> {
  return withCleanup(async (defer) => {
    // Before the service: Bitbucket Cloud is configuration (`BITBUCKET_API_URL`), not a connection's.
    const bitbucket = await new FakeBitbucket().start();
    defer(() => bitbucket.stop());
    const { service, cookie } = await publishingService(backend, defer, { root, email: 'bitbucket-bench@example.com', env: { BITBUCKET_API_URL: bitbucket.apiUrl } });
    const repository = await connectBitbucket(service.url, cookie, bitbucket, 'bench/service');
    const base = `/repositories/${repository.fullName}`;

    let next = 1;
    const publishOne = async (): Promise<Publication> => {
      const number = next++;
      // Bitbucket names commits by their first 12 characters (facts §1): those must differ.
      const head = `${number.toString(16).padStart(12, '0')}${'e'.repeat(28)}`;
      bitbucket.openPullRequest(repository.fullName, number, { author: repository.admin, source: head, destination: BASE, diff: DIFF, title: `Bench ${number}` });
      const delivered = await FakeBitbucket.deliver(`${service.url}/webhook/bitbucket`, 'pullrequest:created', bitbucket.eventPayload(repository.fullName, number, repository.admin), { secret: repository.secret, hookUuid: repository.hookUuid });
      if (delivered.status !== 200) throw new Error(`delivery refused: ${delivered.status} ${delivered.body}`);
      const pullRequest = `${base}/pullrequests/${number}/`;
      const comments = `${pullRequest}comments`;
      const status = `${base}/commit/${head.slice(0, 12)}/statuses/build`;
      return publicationDone(() => {
        if (!bitbucket.repository(repository.fullName).statuses.some((candidate) => candidate.commit === head && candidate.state !== 'INPROGRESS')) return undefined;
        // The diff is read where the pull request's redirect sends it, which names the pull request in its query.
        const calls = bitbucket.requests.filter((request) => request.path.startsWith(pullRequest) || request.path === status || (request.path.startsWith(`${base}/diff/`) && request.query.from_pullrequest_id === String(number)));
        const posts = calls.filter((request) => request.method === 'POST' && request.path === comments);
        // The summary comment may be posted beside the status: the step ends when both are answered.
        if (!posts.some((request) => (request.body as { inline?: unknown }).inline === undefined) || calls.some((request) => Number.isNaN(request.endedAt))) return undefined;
        const inline = posts.filter((request) => (request.body as { inline?: unknown }).inline !== undefined).length;
        if (inline !== FINDINGS) throw new Error(`#${number}: ${inline} inline comments posted, not ${FINDINGS}`);
        return publicationStep(calls, calls.find((request) => request.method === 'GET' && request.path === comments)!);
      });
    };

    return measurePublications(publishOne, { concurrency, rounds });
  });
}

export async function bitbucketPublishingBench(backend: Backend, concurrency = 10, rounds = 3) {
  reportPublishing(`bitbucket-publishing [${backend}]`, 'Bitbucket', concurrency, await bitbucketPublishing(backend, { concurrency, rounds }));
}
