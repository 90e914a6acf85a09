import { AppPullRequest, type InlineComment, type PostedComment } from '../../adapters/github/app-pull-request.js';
import { toGitHubError, type GitHubApp } from '../../adapters/github/github-app.js';
import { GitHubApiError } from '../../adapters/github/github-client.js';
import { HTML_DIALECT, inlineCommentBody, reviewBody } from '../../publishing/comment-bodies.js';
import { findingIdOf, isSummary } from '../../publishing/markers.js';
import type { PublishableFinding } from '../../domain/findings.js';
import type { Logger } from '../../lib/logger.js';
import type { ChangePublisher, FindingThread, HostNote, ReviewStatusReport, StatusRef } from '../code-host.js';
import { githubJobFailure } from './github-failure.js';

const note = (comment: PostedComment): HostNote => ({ id: comment.id, body: comment.body, url: comment.htmlUrl });

/**
 * Posting on a pull request as the GitHub App (decisions.md §8): a check run, one review with
 * the inline comments, the summary as an issue comment, threads resolved through GraphQL.
 */
export class GitHubPublisher implements ChangePublisher {
  readonly refusedReason = 'GitHub could not place it on the diff';
  readonly dialect = HTML_DIALECT;

  constructor(
    private readonly github: AppPullRequest,
    private readonly app: Pick<GitHubApp, 'id' | 'botLogin'>,
    private readonly log: Logger,
  ) {}

  /** A check run named `AI review`: the one recorded or found on GitHub is updated, else one is created. */
  async postStatus(sha: string, report: ReviewStatusReport, recorded: number | null): Promise<StatusRef> {
    const fields = {
      status: report.phase === 'running' ? ('in_progress' as const) : ('completed' as const),
      ...(report.phase === 'running' ? {} : { conclusion: report.phase === 'completed' && report.blocking === 0 ? ('success' as const) : ('neutral' as const) }),
      detailsUrl: report.detailsUrl,
      output: { title: report.title, summary: report.summary },
    };
    const id = recorded ?? (await this.github.checkRuns(sha, this.app.id))[0]?.id ?? null;
    const check = id === null ? await this.github.createCheckRun(sha, fields) : await this.github.updateCheckRun(id, fields);
    return { id: check.id, url: check.htmlUrl || null };
  }

  async postedFindings(): Promise<Map<string, HostNote>> {
    const threads = (await this.github.reviewComments()).filter((comment) => comment.author === this.app.botLogin && comment.inReplyToId === null);
    const byFinding = new Map<string, HostNote>();
    for (const comment of threads) {
      const findingId = findingIdOf(comment.body);
      if (findingId !== undefined && !byFinding.has(findingId)) byFinding.set(findingId, note(comment));
    }
    return byFinding;
  }

  /**
   * One review with the inline comments. GitHub refuses a whole review (422) when one comment's line
   * is not on the diff; each comment is then tried alone as a pending review (deleted at once), and
   * the review is posted with those GitHub accepts. The refused ones go to the summary.
   */
  async postFindings(sha: string, findings: PublishableFinding[]) {
    const { review, refused } = await this.postReview(sha, findings);
    if (review === null) return { posted: [], refused, reviewUrl: null };
    const comments = await this.github.reviewCommentsOf(review.id);
    const posted = comments.flatMap((comment) => {
      const findingId = findingIdOf(comment.body);
      return findingId === undefined ? [] : [{ findingId, note: note(comment) }];
    });
    return { posted, refused, reviewUrl: review.htmlUrl };
  }

  private async postReview(sha: string, findings: PublishableFinding[]): Promise<{ review: { id: number; htmlUrl: string } | null; refused: PublishableFinding[] }> {
    try {
      return { review: await this.github.createReview(sha, reviewBody(findings.length, sha), findings.map(toInline)), refused: [] };
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
    }
    const accepted: PublishableFinding[] = [];
    const refused: PublishableFinding[] = [];
    for (const finding of findings) {
      try {
        const probe = await this.github.createReview(sha, '', [toInline(finding)], { pending: true });
        await this.github.deletePendingReview(probe.id);
        accepted.push(finding);
      } catch (error) {
        if (statusOf(error) !== 422) throw error;
        refused.push(finding);
      }
    }
    if (accepted.length === 0) return { review: null, refused };
    return { review: await this.github.createReview(sha, reviewBody(accepted.length, sha), accepted.map(toInline)), refused };
  }

  /** Where GitHub refuses to resolve (no permission, a thread already gone), the thread gets a reply saying where it was addressed. */
  /** The review threads, through GraphQL (REST does not show whether a thread is resolved). */
  async findingThreads(): Promise<FindingThread[]> {
    const threads = await this.github.reviewThreads();
    return threads.flatMap((thread) => {
      const first = thread.comments[0];
      return first === undefined ? [] : [{ id: thread.id, firstNoteId: first.databaseId, resolved: thread.isResolved, noteBodies: thread.comments.map((comment) => comment.body) }];
    });
  }

  resolveThread(thread: FindingThread): Promise<void> {
    return this.github.resolveThread(thread.id);
  }

  replyInThread(thread: FindingThread, body: string): Promise<void> {
    return this.github.replyToComment(thread.firstNoteId, body);
  }

  /** Anything but a rate limit: an App without the permission to resolve still may reply. */
  mayAnswerInstead(error: unknown): boolean {
    const failure = toGitHubError(error);
    return !(failure instanceof GitHubApiError && failure.retryAfterMs !== undefined);
  }

  /** The one summary comment: found by its marker among the App's comments, edited in place, created only when none exists. */
  async upsertSummary(body: string): Promise<HostNote> {
    const existing = (await this.github.issueComments()).find((comment) => comment.author === this.app.botLogin && isSummary(comment.body));
    if (existing === undefined) return note(await this.github.createIssueComment(body));
    if (existing.body === body) return note(existing);
    return note(await this.github.updateIssueComment(existing.id, body));
  }

  acknowledge(commentId: number): Promise<void> {
    return this.github.acknowledge(commentId);
  }

  async ownNotes(): Promise<HostNote[]> {
    return (await this.github.issueComments()).filter((comment) => comment.author === this.app.botLogin).map(note);
  }

  async reply(body: string): Promise<void> {
    await this.github.createIssueComment(body);
  }
}

const toInline = (finding: PublishableFinding): InlineComment => ({
  path: finding.file,
  line: finding.endLine,
  ...(finding.endLine > finding.line ? { startLine: finding.line } : {}),
  body: inlineCommentBody(finding),
});

function statusOf(error: unknown): number | undefined {
  const converted = toGitHubError(error);
  return converted instanceof GitHubApiError ? converted.status : undefined;
}

/** A session on one pull request as the App's installation. */
export function githubSession(app: GitHubApp, installationId: number, repositoryName: string, prNumber: number, log: Logger) {
  return {
    run: <T>(call: (publisher: ChangePublisher) => Promise<T>) => app.asInstallation(installationId, (api) => call(new GitHubPublisher(new AppPullRequest(api, repositoryName, prNumber), app, log))),
    failure: githubJobFailure,
  };
}
