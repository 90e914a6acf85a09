import pLimit from 'p-limit';
import type { Logger } from '../../lib/logger.js';
import type { PublishableFinding } from '../../domain/findings.js';
import { parseUnifiedDiff } from '../../review/prepare/diff/parse-unified-diff.js';
import type { ChangePublisher, FindingThread, HostNote, ReviewStatusReport, StatusRef } from '../code-host.js';
import { BITBUCKET_DIALECT, bitbucketInlineBody } from './bitbucket-bodies.js';
import type { BitbucketClient, BitbucketTarget, BuildState } from './bitbucket-client.js';
import { BitbucketRefusedPositionError } from './bitbucket-errors.js';
import { inlineAnchors } from './bitbucket-position.js';
import type { BitbucketComment } from './bitbucket-schemas.js';

/** The build status's key: one status per commit, a repeated key overwrites (facts §4, at most 40 characters). */
export const STATUS_KEY = 'ai-review';
export const STATUS_NAME = 'AI review';

/** Bitbucket documents no limit for a status's description; its `name` must stay under 255 (facts §4), taken for both. */
const DESCRIPTION_LIMIT = 254;

/**
 * Inline comments posted at once. Bitbucket has no batch call; its limit is an hourly budget (1,000
 * calls per user or access token, facts §6) that the 25 of a run spend whatever the concurrency, so
 * a few at once only shortens the run without hammering one repository.
 */
const COMMENTS_AT_ONCE = 5;

type AnchorOf = ReturnType<typeof inlineAnchors>;

/** One pull request, as the connection's account. */
export interface BitbucketPullRequestRef {
  target: BitbucketTarget;
  /** Bitbucket's pull-request id (unique within the repository). */
  number: number;
  /** The pull request's web page: a comment without its own link is `<page>#comment-<id>`. */
  webUrl: string;
  /** A command's comment: answers are replies to it (`parent.id`, decisions.md §16); absent when publishing a review. */
  replyTo?: number;
}

/**
 * The account the connection writes as (decisions.md §16): only its comments are the service's,
 * whatever markers someone else's carry (a forged summary marker must not make the service edit, and
 * be refused on, another's comment). An API token's is `GET /user`'s; an access token's is known only
 * from a comment it created (facts §5), so until then nothing on the pull request is taken for its own.
 */
export interface ServiceAccount {
  uuid(): Promise<string | null>;
  /** The author of a comment the service just created. */
  learn(uuid: string | null | undefined): Promise<void>;
}

/**
 * Posting on a Bitbucket pull request (decisions.md §16): the `AI review` build status, one inline
 * comment per finding on a new-side line of the diff, the summary as a comment edited in place, gone
 * findings' comments resolved (or answered). Bodies carry link-reference markers (`BITBUCKET_DIALECT`).
 */
export class BitbucketPublisher implements ChangePublisher {
  readonly refusedReason = 'Bitbucket could not place it on the diff';
  readonly dialect = BITBUCKET_DIALECT;

  /** The pull request's comments as this publisher (one job) last read them; what it creates is added, any other write drops them (see GitLab's publisher). */
  private known: BitbucketComment[] | undefined;
  /** Where findings go: read beside the comments when the job has findings to post, else by `postFindings`. */
  private anchors: Promise<AnchorOf> | undefined;

  constructor(
    private readonly client: BitbucketClient,
    private readonly pr: BitbucketPullRequestRef,
    private readonly account: ServiceAccount,
    private readonly log: Logger,
  ) {}

  /** The commit's status under one key: posting INPROGRESS then SUCCESSFUL overwrites it, so a retried post is harmless. Endpoints take the 12-character hash (facts §2). */
  async postStatus(sha: string, report: ReviewStatusReport, recorded: number | null): Promise<StatusRef> {
    const state: BuildState = report.phase === 'running' ? 'INPROGRESS' : report.phase === 'failed' ? 'FAILED' : 'SUCCESSFUL';
    const description = report.phase === 'failed' ? `Review failed: ${report.reason ?? 'unknown reason'}` : report.title;
    await this.client.postBuildStatus(this.pr.target, sha, { key: STATUS_KEY, state, name: STATUS_NAME, url: report.detailsUrl, description: description.slice(0, DESCRIPTION_LIMIT) });
    // A build status has no numeric id: its key names it.
    return { id: recorded ?? 0, url: report.detailsUrl };
  }

  async postedFindings(toPost: readonly PublishableFinding[] = []): Promise<Map<string, HostNote>> {
    if (toPost.length > 0 && this.anchors === undefined) {
      this.anchors = this.readAnchors();
      // Awaited by postFindings; a failure of the comments' read must not leave it unhandled meanwhile.
      this.anchors.catch(() => undefined);
    }
    const byFinding = new Map<string, HostNote>();
    for (const comment of await this.own()) {
      const findingId = comment.parent ? undefined : this.dialect.markers.findingIdOf(comment.content.raw ?? '');
      if (findingId !== undefined && !byFinding.has(findingId)) byFinding.set(findingId, this.note(comment));
    }
    return byFinding;
  }

  /** One inline comment per finding on its last line (a span from its first, facts §3); off the diff, or refused by Bitbucket (a 4xx), it goes to the summary. */
  async postFindings(_sha: string, findings: PublishableFinding[]) {
    const anchorOf = await (this.anchors ??= this.readAnchors());
    const limit = pLimit(COMMENTS_AT_ONCE);
    const outcomes = await Promise.all(
      findings.map((finding) =>
        limit(async (): Promise<{ findingId: string; note: HostNote } | 'refused'> => {
          const anchor = anchorOf(finding);
          if (anchor === undefined) return 'refused';
          try {
            const comment = await this.client.createComment(this.pr.target, this.pr.number, bitbucketInlineBody(finding), { anchor });
            await this.created(comment);
            return { findingId: finding.id, note: this.note(comment) };
          } catch (error) {
            if (!(error instanceof BitbucketRefusedPositionError)) throw error;
            this.log.info({ findingId: finding.id, reason: error.message }, 'Bitbucket refused the inline anchor; the finding goes to the summary');
            return 'refused';
          }
        }),
      ),
    );
    const posted = outcomes.filter((outcome): outcome is { findingId: string; note: HostNote } => typeof outcome === 'object');
    const refused = findings.filter((_, index) => outcomes[index] === 'refused');
    return { posted, refused, reviewUrl: null };
  }

  /** Each top-level comment with its replies (a reply names its parent, which may be a reply itself). */
  async findingThreads(): Promise<FindingThread[]> {
    const comments = await this.comments();
    const byId = new Map(comments.map((comment) => [comment.id, comment]));
    const rootOf = (comment: BitbucketComment): BitbucketComment => {
      let current = comment;
      for (let depth = 0; current.parent && byId.has(current.parent.id) && depth < comments.length; depth++) current = byId.get(current.parent.id)!;
      return current;
    };
    const threads = new Map<number, FindingThread>();
    for (const comment of comments) {
      const root = rootOf(comment);
      if (root.parent) continue;
      const thread = threads.get(root.id) ?? { id: String(root.id), firstNoteId: root.id, resolved: root.resolution !== null && root.resolution !== undefined, noteBodies: [] };
      if (comment === root) thread.noteBodies.unshift(comment.content.raw ?? '');
      else thread.noteBodies.push(comment.content.raw ?? '');
      threads.set(root.id, thread);
    }
    return [...threads.values()];
  }

  async resolveThread(thread: FindingThread): Promise<void> {
    this.known = undefined;
    const outcome = await this.client.resolveComment(this.pr.target, this.pr.number, thread.firstNoteId);
    if (outcome === 'refused') throw new BitbucketResolveRefusedError(thread.firstNoteId);
  }

  async replyInThread(thread: FindingThread, body: string): Promise<void> {
    await this.created(await this.client.createComment(this.pr.target, this.pr.number, body, { parentId: thread.firstNoteId }));
  }

  /** Only Bitbucket's refusal of the resolve itself (403, 409) is answered; a rate limit or a refused token rethrows for the job's failure rules. */
  mayAnswerInstead(error: unknown): boolean {
    return error instanceof BitbucketResolveRefusedError;
  }

  async upsertSummary(body: string): Promise<HostNote> {
    const existing = (await this.ownNotes()).find((note) => this.dialect.markers.isSummary(note.body));
    if (existing !== undefined && existing.body === body) return existing;
    if (existing === undefined) return this.note(await this.created(await this.client.createComment(this.pr.target, this.pr.number, body)));
    this.known = undefined;
    return this.note(await this.client.updateComment(this.pr.target, this.pr.number, existing.id, body));
  }

  /**
   * Bitbucket Cloud has no reactions API (facts §3), so nothing visible is done: `/review` is
   * acknowledged by the build status turning INPROGRESS, `/ask` and `/help` by their reply, and a
   * verdict is recorded silently (a reply per verdict would be noise in the finding's thread).
   */
  async acknowledge(_noteId: number): Promise<void> {}

  /** The account's comments outside finding threads: the summary and the answers to commands (replies to them). */
  async ownNotes(): Promise<HostNote[]> {
    const markers = this.dialect.markers;
    return (await this.own()).filter((comment) => markers.findingIdOf(comment.content.raw ?? '') === undefined && markers.addressedIdOf(comment.content.raw ?? '') === undefined).map((comment) => this.note(comment));
  }

  /** An answer to a command is a reply to its comment (decisions.md §16); without one, a comment on the pull request. */
  async reply(body: string): Promise<void> {
    await this.created(await this.client.createComment(this.pr.target, this.pr.number, body, this.pr.replyTo === undefined ? {} : { parentId: this.pr.replyTo }));
  }

  /** The pull request's diff, parsed once: where each finding's comment may go. */
  private async readAnchors(): Promise<AnchorOf> {
    return inlineAnchors(parseUnifiedDiff(await this.client.pullRequestDiff(this.pr.target, this.pr.number)));
  }

  private async comments(): Promise<BitbucketComment[]> {
    this.known ??= await this.client.listComments(this.pr.target, this.pr.number);
    return this.known;
  }

  /** The comments the connection's account wrote; none while that account is unknown. */
  private async own(): Promise<BitbucketComment[]> {
    const [comments, account] = await Promise.all([this.comments(), this.account.uuid()]);
    return account === null ? [] : comments.filter((comment) => comment.user?.uuid === account);
  }

  /** A comment the service created: kept in the read, and its author remembered as the service's account. */
  private async created(comment: BitbucketComment): Promise<BitbucketComment> {
    this.known?.push(comment);
    await this.account.learn(comment.user?.uuid);
    return comment;
  }

  private note(comment: BitbucketComment): HostNote {
    return { id: comment.id, body: comment.content.raw ?? '', url: comment.links?.html?.href ?? `${this.pr.webUrl}#comment-${comment.id}` };
  }
}

/** Bitbucket will not resolve a gone finding's comment (403: not resolvable; 409: resolved meanwhile): the thread gets a reply instead. */
export class BitbucketResolveRefusedError extends Error {
  override name = 'BitbucketResolveRefusedError';
  constructor(commentId: number) {
    super(`Bitbucket refused to resolve comment ${commentId}`);
  }
}
