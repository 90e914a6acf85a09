import type { InstallationApi } from './github-app.js';

export const CHECK_RUN_NAME = 'AI review';

export interface PostedComment {
  id: number;
  body: string;
  htmlUrl: string;
  /** Login of the author: the App posts as `<slug>[bot]`. */
  author: string;
  inReplyToId: number | null;
}

export interface CheckRunRef {
  id: number;
  htmlUrl: string;
}

export interface ReviewThread {
  id: string;
  isResolved: boolean;
  /** The thread's comments, first (the one that opened it) first. */
  comments: Array<{ databaseId: number; body: string }>;
}

export interface InlineComment {
  path: string;
  line: number;
  startLine?: number;
  body: string;
}

export interface CheckRunOutput {
  title: string;
  summary: string;
}

const THREADS_QUERY = `query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 50) { nodes { databaseId body } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation($threadId: ID!) { resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }`;

interface ThreadsAnswer {
  repository: {
    pullRequest: {
      reviewThreads: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Array<{ id: string; isResolved: boolean; comments: { nodes: Array<{ databaseId: number; body: string }> } }> };
    } | null;
  } | null;
}

/**
 * What the App does on one pull request, in GitHub's REST and GraphQL terms: check runs, reviews
 * with inline comments, issue comments, replies, reactions and review threads.
 */
export class AppPullRequest {
  private readonly owner: string;
  private readonly repo: string;

  constructor(
    private readonly api: InstallationApi,
    fullName: string,
    readonly number: number,
  ) {
    const [owner, repo] = fullName.split('/');
    this.owner = owner!;
    this.repo = repo!;
  }

  /** The App's check runs named `AI review` on a commit (GitHub lists only the calling App's when filtered by name). */
  async checkRuns(sha: string, appId: string): Promise<CheckRunRef[]> {
    const { data } = await this.api.rest.checks.listForRef({ owner: this.owner, repo: this.repo, ref: sha, check_name: CHECK_RUN_NAME, filter: 'latest', per_page: 100 });
    return data.check_runs.filter((run) => run.app === null || String(run.app.id) === appId).map((run) => ({ id: run.id, htmlUrl: run.html_url ?? '' }));
  }

  async createCheckRun(sha: string, fields: { status: 'in_progress' | 'completed'; conclusion?: 'success' | 'neutral'; detailsUrl: string; output: CheckRunOutput }): Promise<CheckRunRef> {
    const { data } = await this.api.rest.checks.create({
      owner: this.owner,
      repo: this.repo,
      name: CHECK_RUN_NAME,
      head_sha: sha,
      status: fields.status,
      ...(fields.conclusion === undefined ? {} : { conclusion: fields.conclusion, completed_at: new Date().toISOString() }),
      details_url: fields.detailsUrl,
      output: fields.output,
    });
    return { id: data.id, htmlUrl: data.html_url ?? '' };
  }

  async updateCheckRun(id: number, fields: { status: 'in_progress' | 'completed'; conclusion?: 'success' | 'neutral'; detailsUrl: string; output: CheckRunOutput }): Promise<CheckRunRef> {
    const { data } = await this.api.rest.checks.update({
      owner: this.owner,
      repo: this.repo,
      check_run_id: id,
      status: fields.status,
      ...(fields.conclusion === undefined ? {} : { conclusion: fields.conclusion, completed_at: new Date().toISOString() }),
      details_url: fields.detailsUrl,
      output: fields.output,
    });
    return { id: data.id, htmlUrl: data.html_url ?? '' };
  }

  /** Every inline (review) comment of the pull request. */
  async reviewComments(): Promise<PostedComment[]> {
    const comments = await this.api.rest.paginate(this.api.rest.pulls.listReviewComments, { owner: this.owner, repo: this.repo, pull_number: this.number, per_page: 100 });
    return comments.map((comment) => ({ id: comment.id, body: comment.body, htmlUrl: comment.html_url, author: comment.user?.login ?? '', inReplyToId: comment.in_reply_to_id ?? null }));
  }

  /**
   * One review with its inline comments, submitted as `COMMENT`; with `pending`, left unsubmitted
   * (a probe that is deleted right after).
   */
  async createReview(sha: string, body: string, comments: InlineComment[], { pending = false } = {}): Promise<{ id: number; htmlUrl: string }> {
    const { data } = await this.api.rest.pulls.createReview({
      owner: this.owner,
      repo: this.repo,
      pull_number: this.number,
      commit_id: sha,
      body,
      ...(pending ? {} : { event: 'COMMENT' as const }),
      comments: comments.map((comment) => ({
        path: comment.path,
        line: comment.line,
        side: 'RIGHT',
        ...(comment.startLine === undefined ? {} : { start_line: comment.startLine, start_side: 'RIGHT' }),
        body: comment.body,
      })),
    });
    return { id: data.id, htmlUrl: data.html_url };
  }

  async deletePendingReview(reviewId: number): Promise<void> {
    await this.api.rest.pulls.deletePendingReview({ owner: this.owner, repo: this.repo, pull_number: this.number, review_id: reviewId });
  }

  async reviewCommentsOf(reviewId: number): Promise<PostedComment[]> {
    const comments = await this.api.rest.paginate(this.api.rest.pulls.listCommentsForReview, { owner: this.owner, repo: this.repo, pull_number: this.number, review_id: reviewId, per_page: 100 });
    return comments.map((comment) => ({ id: comment.id, body: comment.body, htmlUrl: comment.html_url, author: comment.user?.login ?? '', inReplyToId: null }));
  }

  async replyToComment(commentId: number, body: string): Promise<void> {
    await this.api.rest.pulls.createReplyForReviewComment({ owner: this.owner, repo: this.repo, pull_number: this.number, comment_id: commentId, body });
  }

  /** Every conversation comment of the pull request (its issue comments). */
  async issueComments(): Promise<PostedComment[]> {
    const comments = await this.api.rest.paginate(this.api.rest.issues.listComments, { owner: this.owner, repo: this.repo, issue_number: this.number, per_page: 100 });
    return comments.map((comment) => ({ id: comment.id, body: comment.body ?? '', htmlUrl: comment.html_url, author: comment.user?.login ?? '', inReplyToId: null }));
  }

  async createIssueComment(body: string): Promise<PostedComment> {
    const { data } = await this.api.rest.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: this.number, body });
    return { id: data.id, body: data.body ?? '', htmlUrl: data.html_url, author: data.user?.login ?? '', inReplyToId: null };
  }

  async updateIssueComment(commentId: number, body: string): Promise<PostedComment> {
    const { data } = await this.api.rest.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: commentId, body });
    return { id: data.id, body: data.body ?? '', htmlUrl: data.html_url, author: data.user?.login ?? '', inReplyToId: null };
  }

  /** The `eyes` reaction that acknowledges a command (GitHub answers 200 for one that exists). */
  async acknowledge(commentId: number): Promise<void> {
    await this.api.rest.reactions.createForIssueComment({ owner: this.owner, repo: this.repo, comment_id: commentId, content: 'eyes' });
  }

  async reviewThreads(): Promise<ReviewThread[]> {
    const threads: ReviewThread[] = [];
    let cursor: string | null = null;
    do {
      const answer: ThreadsAnswer = await this.api.graphql<ThreadsAnswer>(THREADS_QUERY, { owner: this.owner, name: this.repo, number: this.number, cursor });
      const page = answer.repository?.pullRequest?.reviewThreads;
      if (page === undefined) break;
      for (const node of page.nodes) threads.push({ id: node.id, isResolved: node.isResolved, comments: node.comments.nodes });
      cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (cursor !== null);
    return threads;
  }

  async resolveThread(threadId: string): Promise<void> {
    await this.api.graphql(RESOLVE_MUTATION, { threadId });
  }
}
