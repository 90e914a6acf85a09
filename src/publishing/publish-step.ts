import { withLock } from '../adapters/kv/key-value-lock.js';
import type { KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { Job } from '../adapters/queue/job-queue.js';
import type { ChangePublisher, HostNote, HostSession, ReviewStatusReport } from '../code-hosts/code-host.js';
import type { PublishingHosts } from '../code-hosts/code-hosts.js';
import type { Publication, PullRequest, Review } from '../db/schema/index.js';
import { apiPrId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import type { PublicationRepository } from '../repositories/publication-repository.js';
import type { ReviewRepository } from '../repositories/review-repository.js';
import { summaryCommentBody } from './comment-bodies.js';
import { resolveGone } from './resolve-gone.js';
import { selectInline, type HeldBack } from './select-inline.js';
import { readStoredReview, type PublishableReview } from './stored-review.js';

export interface PublishDeps {
  reviews: ReviewRepository;
  publications: PublicationRepository;
  hosts: PublishingHosts;
  publicUrl: string;
  log: Logger;
  /** Where one pull request's publishing is locked, shared by every worker process. */
  locks: KeyValueStore;
}

/** The review's page in the web app (decisions.md §9): the status's details and the summary's link. */
export const reviewPageUrl = (publicUrl: string, pr: Pick<PullRequest, 'prId' | 'id' | 'provider'>) => `${publicUrl}/pulls/${apiPrId(pr)}`;

/** What a publishing job did: posted the finished review, put the status in progress, or nothing (a later run, access lost). */
export type PublicationOutcome = 'published' | 'check-started' | 'skipped';

/** Longer than any publishing of one run takes; a job waits about as long for the one before it. */
const PUBLISHING_LOCK = { ttlSeconds: 120, waitMs: 120_000 };

/**
 * `completedReview`: posts a review run on its change, on whichever code host it came from
 * (decisions.md §8, §12). Every write is preceded by reading back what the service already posted
 * (hidden markers), so a job that runs twice posts nothing twice. Publishing never changes the
 * review itself.
 *
 * One pull request's jobs publish one at a time: a run that fails at once has its `started` and
 * `finished` jobs running together, and both would find no status on the commit and create one,
 * leaving one in progress for good. Each job reads the run and what was posted inside the lock, so
 * it sees what the job before it did.
 */
export function publishReview(deps: PublishDeps, job: Job<'completedReview'>): Promise<PublicationOutcome> {
  return withLock(deps.locks, `publishing:${job.payload.pullRequestId}`, PUBLISHING_LOCK, () => publishRun(deps, job));
}

async function publishRun(deps: PublishDeps, job: Job<'completedReview'>): Promise<PublicationOutcome> {
  const { pullRequestId, runId, phase } = job.payload;
  const run = await deps.reviews.loadRun(pullRequestId);
  // A later run (a push, a re-run) publishes instead.
  if (run === undefined || run.review.runId !== runId) return 'skipped';
  const { review, pr } = run;
  const session: HostSession | undefined = await deps.hosts.session(pr);
  if (session === undefined) return 'skipped';
  if (phase === 'started' ? review.status !== 'pending' : review.status === 'pending') return 'skipped';

  const publication = await deps.publications.find(pr.id);
  const context: PublishContext = { deps, pr, review, publication, detailsUrl: reviewPageUrl(deps.publicUrl, pr) };
  try {
    await session.run(async (host) => {
      if (phase === 'started') await startStatus(context, host);
      else if (review.status === 'failed') await publishFailure(context, host);
      else await publishCompleted(context, host);
    });
  } catch (error) {
    throw session.failure(error);
  }
  return phase === 'started' ? 'check-started' : 'published';
}

interface PublishContext {
  deps: PublishDeps;
  pr: PullRequest;
  review: Review;
  publication: Publication | undefined;
  detailsUrl: string;
}

const reviewedSha = (context: PublishContext) => context.review.headSha ?? context.pr.headSha;

async function startStatus(context: PublishContext, host: ChangePublisher): Promise<void> {
  const sha = reviewedSha(context);
  const status = await postStatus(context, host, sha, {
    phase: 'running',
    blocking: 0,
    title: 'Reviewing',
    summary: `The AI review of ${sha.slice(0, 12)} is running (${context.review.mode} mode).`,
    detailsUrl: context.detailsUrl,
  });
  await context.deps.publications.save(context.pr.id, context.review.runId, { state: 'pending', reason: null, ...status });
}

async function publishFailure(context: PublishContext, host: ChangePublisher): Promise<void> {
  const sha = reviewedSha(context);
  const reason = context.review.failureReason ?? 'unknown reason';
  const status = await postStatus(context, host, sha, {
    phase: 'failed',
    blocking: 0,
    title: 'Review failed',
    summary: `The AI review of ${sha.slice(0, 12)} failed: ${reason}`,
    reason,
    detailsUrl: context.detailsUrl,
  });
  await context.deps.publications.save(context.pr.id, context.review.runId, { state: 'published', reason: null, headSha: sha, ...status });
}

async function publishCompleted(context: PublishContext, host: ChangePublisher): Promise<void> {
  const { deps, pr } = context;
  const stored = readStoredReview(context.review.reviewRawJson);
  const sha = stored.reviewedCommit ?? context.review.reviewdSha ?? reviewedSha(context);

  // What the service already posted inline, by finding: read back from the host, the only truth a
  // retry can trust. The host is told what this job would post, so what it needs to place them is
  // read in the same round trip. What the database recorded is read beside it, and waited for only
  // once the findings are posted: posting reads nothing of it.
  const candidates = selectInline(stored.findings, stored.inlineMinSeverity).inline;
  const recordedRead = deps.publications.postedFindings(pr.id);
  // Awaited below; a failure of the host's read must not leave it unhandled meanwhile.
  recordedRead.catch(() => undefined);
  const postedByFinding = await host.postedFindings(candidates);

  const fresh = stored.findings.filter((finding) => !postedByFinding.has(finding.id));
  const { inline, heldBack } = selectInline(fresh, stored.inlineMinSeverity);
  let reviewUrl = context.publication?.reviewUrl ?? null;
  const postedNow: Array<{ findingId: string; note: HostNote }> = [];
  if (inline.length > 0) {
    const outcome = await host.postFindings(sha, inline);
    heldBack.push(...outcome.refused.map((finding) => ({ finding, reason: host.refusedReason })));
    reviewUrl = outcome.reviewUrl ?? reviewUrl;
    postedNow.push(...outcome.posted);
  }

  // A crash between posting and recording leaves threads unrecorded: record what the host shows,
  // with what was posted now, in one statement while the rest is posted (none of it reads these
  // rows, and a crash before the insert is what the read-back above repairs).
  const recorded = await recordedRead;
  const known = new Set(recorded.map((row) => row.findingId));
  const unrecorded = [...postedByFinding].filter(([findingId]) => !known.has(findingId)).map(([findingId, note]) => posted(pr, findingId, note, sha));
  const recording = deps.publications.recordPosted([...unrecorded, ...postedNow.map(({ findingId, note }) => posted(pr, findingId, note, sha))]);

  // Threads of findings no longer in the review: from the rows read above and those just recovered (the ones posted now are all open).
  const open = new Set(stored.findings.map((finding) => finding.id));
  const gone = [...recorded, ...unrecorded.map((row) => ({ ...row, resolvedAt: null }))].filter((row) => row.resolvedAt === null && !open.has(row.findingId));
  const resolveAndSummarize = async () => {
    if (gone.length > 0) {
      // A recovered thread's row must exist before it is marked resolved.
      await recording;
      await resolveGone(host, gone, sha, (findingId) => deps.publications.markResolved(pr.id, [findingId]), deps.log);
    }
    return host.upsertSummary(summaryCommentBody({ review: stored, heldBack: sortHeldBack(heldBack), reviewableFiles: context.review.coverage?.reviewableFiles ?? null, sha, reviewUrl: context.detailsUrl, dialect: host.dialect }));
  };
  // The status beside the summary: neither reads the other, the status's link is the review's page
  // (not the summary), and a retry after either failed finds the other done (the summary unchanged
  // is not edited, a status already in its state is kept).
  const [summary, status] = await Promise.all([
    resolveAndSummarize(),
    postStatus(context, host, sha, { phase: 'completed', blocking: blocking(stored), ...statusText(stored), detailsUrl: context.detailsUrl }),
    recording,
  ]);
  await deps.publications.save(pr.id, context.review.runId, {
    state: 'published',
    reason: null,
    headSha: sha,
    reviewUrl,
    summaryCommentId: summary.id,
    summaryCommentUrl: summary.url,
    ...status,
  });
}

const posted = (pr: PullRequest, findingId: string, note: { id: number; url: string }, sha: string) => ({
  pullRequestId: pr.id,
  findingId,
  commentId: note.id,
  commentUrl: note.url,
  commitSha: sha,
});

/** The commit's status, and the columns that remember it (so the next phase updates that one). */
async function postStatus(context: PublishContext, host: ChangePublisher, sha: string, report: ReviewStatusReport) {
  const recorded = context.publication?.statusSha === sha ? context.publication.statusId : null;
  const status = await host.postStatus(sha, report, recorded);
  return { statusId: status.id, statusSha: sha, statusUrl: status.url };
}

const blocking = (review: PublishableReview) => review.findings.filter((finding) => finding.severity === 'CRITICAL' || finding.severity === 'MAJOR').length;

function statusText(review: PublishableReview): { title: string; summary: string } {
  const count = blocking(review);
  const title = count === 0 ? (review.findings.length === 0 ? 'No findings' : 'No critical or major findings') : `${count} critical or major finding${count === 1 ? '' : 's'}`;
  return { title, summary: [review.overview, `${review.findings.length} finding${review.findings.length === 1 ? '' : 's'} in all; details in the pull request.`].filter(Boolean).join('\n\n') };
}

function sortHeldBack(heldBack: HeldBack[]): HeldBack[] {
  return [...heldBack].sort((a, b) => a.finding.file.localeCompare(b.finding.file) || a.finding.line - b.finding.line);
}
