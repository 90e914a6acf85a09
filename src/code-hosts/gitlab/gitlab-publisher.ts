import pLimit from 'p-limit';
import type { GitLabClient, GitLabTarget } from './gitlab-client.js';
import { assembleUnifiedDiff } from './gitlab-diff.js';
import { GitLabApiError } from './gitlab-errors.js';
import type { GitLabDiscussion } from './gitlab-schemas.js';
import { RetryLaterError } from '../../adapters/queue/job-queue.js';
import type { Logger } from '../../lib/logger.js';
import { HTML_DIALECT, inlineCommentBody } from '../../publishing/comment-bodies.js';
import { findingIdOf, isSummary } from '../../publishing/markers.js';
import type { PublishableFinding } from '../../domain/findings.js';
import { parseUnifiedDiff } from '../../review/prepare/diff/parse-unified-diff.js';
import type { ChangePublisher, FindingThread, HostNote, ReviewStatusReport, StatusRef } from '../code-host.js';
import { diffPositions } from './gitlab-position.js';

export const STATUS_NAME = 'AI review';

type PositionOf = ReturnType<typeof diffPositions>;

/**
 * Discussions posted at once: all 25 a run may post, in one round trip. GitLab's notes limit (300 a
 * minute per user by default) counts the 25 whatever the concurrency, and the publishing workers'
 * concurrency bounds what the service holds of an instance at once (decisions.md §12).
 */
export const DISCUSSIONS_AT_ONCE = 25;

/** GitLab's limit for a commit status's description. */
const DESCRIPTION_LIMIT = 255;

/** One merge request, as the connection's token user. */
export interface GitLabMergeRequestRef {
  target: GitLabTarget;
  projectId: number;
  iid: number;
  /** The merge request's web page: notes are linked as `<page>#note_<id>`. */
  webUrl: string;
  tokenUserId: number;
}

/**
 * Posting on a merge request (decisions.md §12): the `AI review` commit status, one diff
 * discussion per finding with GitLab's position, the summary as a note edited in place, gone
 * findings' discussions resolved.
 */
export class GitLabPublisher implements ChangePublisher {
  readonly refusedReason = 'GitLab could not place it on the diff';
  readonly dialect = HTML_DIALECT;

  /**
   * The merge request's discussions as this publisher (one job) last read them. A publication reads
   * them once, at its start, and its later steps (gone findings, the summary) use that read: the
   * discussions it posts itself are added to it, and any other write of its own (a note, a
   * resolution, a reply) drops it, so the next step reads again. A second read of 25 discussions
   * was a GitLab call and their parsing on every publication.
   */
  private known: GitLabDiscussion[] | undefined;

  /** Where findings go on the diff: read beside the discussions when the job has findings to post, else by `postFindings`. */
  private positions: Promise<PositionOf> | undefined;

  constructor(
    private readonly client: GitLabClient,
    private readonly mr: GitLabMergeRequestRef,
    private readonly log: Logger,
  ) {}

  async postStatus(sha: string, report: ReviewStatusReport, recorded: number | null): Promise<StatusRef> {
    const state = report.phase === 'running' ? 'running' : report.phase === 'failed' ? 'failed' : 'success';
    const description = report.phase === 'failed' ? `Review failed: ${report.reason ?? 'unknown reason'}` : report.title;
    try {
      const status = await this.client.postStatus(this.mr.target, this.mr.projectId, sha, { state, name: STATUS_NAME, targetUrl: report.detailsUrl, description: description.slice(0, DESCRIPTION_LIMIT) });
      return { id: status.id, url: report.detailsUrl };
    } catch (error) {
      // GitLab refuses a transition to the state the status already has: a retried job's status is already right.
      if (error instanceof GitLabApiError && error.status === 400 && /cannot transition/i.test(error.message)) return { id: recorded ?? 0, url: report.detailsUrl };
      throw error;
    }
  }

  async postedFindings(toPost: readonly PublishableFinding[] = []): Promise<Map<string, HostNote>> {
    if (toPost.length > 0 && this.positions === undefined) {
      this.positions = this.readPositions();
      // Awaited by postFindings; a failure of the discussions' read must not leave it unhandled meanwhile.
      this.positions.catch(() => undefined);
    }
    const byFinding = new Map<string, HostNote>();
    for (const discussion of await this.discussions()) {
      const first = discussion.notes[0];
      if (first === undefined || first.author.id !== this.mr.tokenUserId) continue;
      const findingId = findingIdOf(first.body);
      if (findingId !== undefined && !byFinding.has(findingId)) byFinding.set(findingId, this.note(first));
    }
    return byFinding;
  }

  /**
   * One discussion per finding; a position GitLab refuses (400), or lines not in the diff, send the
   * finding to the summary. GitLab has no batch call: the discussions are posted a few at a time
   * (diff discussions show on their lines, so their creation order does not matter), and the
   * results keep the findings' order.
   */
  async postFindings(_sha: string, findings: PublishableFinding[]) {
    const positionOf = await (this.positions ??= this.readPositions());
    const limit = pLimit(DISCUSSIONS_AT_ONCE);
    const outcomes = await Promise.all(
      findings.map((finding) =>
        limit(async (): Promise<{ findingId: string; note: HostNote } | 'refused' | undefined> => {
          const position = positionOf(finding);
          if (position === undefined) return 'refused';
          // GitLab counts a suggestion's lines from the anchored (last) line: `-N` reaches back to the first.
          const body = inlineCommentBody(finding, `suggestion:-${finding.endLine - finding.line}+0`);
          try {
            const discussion = await this.client.createDiscussion(this.mr.target, this.mr.projectId, this.mr.iid, body, position);
            this.known?.push(discussion);
            const first = discussion.notes[0];
            return first === undefined ? undefined : { findingId: finding.id, note: this.note(first) };
          } catch (error) {
            if (!(error instanceof GitLabApiError) || error.status !== 400) throw error;
            this.log.info({ findingId: finding.id, reason: error.message }, 'GitLab refused the position; the finding goes to the summary');
            return 'refused';
          }
        }),
      ),
    );
    const posted = outcomes.filter((outcome): outcome is { findingId: string; note: HostNote } => typeof outcome === 'object');
    const refused = findings.filter((_, index) => outcomes[index] === 'refused');
    return { posted, refused, reviewUrl: null };
  }

  /** Where GitLab refuses to resolve (a discussion that is not resolvable), the discussion gets a reply saying where it was addressed. */
  async findingThreads(): Promise<FindingThread[]> {
    return (await this.discussions()).flatMap((discussion) => {
      const first = discussion.notes[0];
      return first === undefined ? [] : [{ id: discussion.id, firstNoteId: first.id, resolved: first.resolved === true, noteBodies: discussion.notes.map((note) => note.body) }];
    });
  }

  async resolveThread(thread: FindingThread): Promise<void> {
    this.known = undefined;
    await this.client.resolveDiscussion(this.mr.target, this.mr.projectId, this.mr.iid, thread.id);
  }

  async replyInThread(thread: FindingThread, body: string): Promise<void> {
    this.known = undefined;
    await this.client.replyToDiscussion(this.mr.target, this.mr.projectId, this.mr.iid, thread.id, body);
  }

  /** GitLab's own refusals of the resolve (a 4xx other than a refused token); a rate limit, a refused token or a network failure rethrow. */
  mayAnswerInstead(error: unknown): boolean {
    return !(error instanceof RetryLaterError || !(error instanceof GitLabApiError) || error.status === 401 || error.status === 403);
  }

  async upsertSummary(body: string): Promise<HostNote> {
    const existing = (await this.ownNotes()).find((note) => isSummary(note.body));
    if (existing !== undefined && existing.body === body) return existing;
    this.known = undefined;
    if (existing === undefined) return this.note(await this.client.createNote(this.mr.target, this.mr.projectId, this.mr.iid, body));
    return this.note(await this.client.editNote(this.mr.target, this.mr.projectId, this.mr.iid, existing.id, body));
  }

  acknowledge(noteId: number): Promise<void> {
    return this.client.awardNoteEmoji(this.mr.target, this.mr.projectId, this.mr.iid, noteId, 'eyes');
  }

  /** The token user's notes that stand alone (not in a finding's discussion). */
  async ownNotes(): Promise<HostNote[]> {
    return (await this.discussions())
      .filter((discussion) => discussion.individual_note)
      .flatMap((discussion) => discussion.notes)
      .filter((note) => note.author.id === this.mr.tokenUserId)
      .map((note) => this.note(note));
  }

  async reply(body: string): Promise<void> {
    this.known = undefined;
    await this.client.createNote(this.mr.target, this.mr.projectId, this.mr.iid, body);
  }

  /** The merge request's diff refs and its diff, read side by side: where each finding's discussion goes. */
  private async readPositions(): Promise<PositionOf> {
    const [mergeRequest, entries] = await Promise.all([
      this.client.mergeRequest(this.mr.target, this.mr.projectId, this.mr.iid),
      this.client.mergeRequestDiffEntries(this.mr.target, this.mr.projectId, this.mr.iid),
    ]);
    return mergeRequest.diff_refs ? diffPositions(parseUnifiedDiff(assembleUnifiedDiff(entries)), mergeRequest.diff_refs) : () => undefined;
  }

  private async discussions(): Promise<GitLabDiscussion[]> {
    this.known ??= await this.client.listDiscussions(this.mr.target, this.mr.projectId, this.mr.iid);
    return this.known;
  }

  private note(note: { id: number; body: string }): HostNote {
    return { id: note.id, body: note.body, url: `${this.mr.webUrl}#note_${note.id}` };
  }
}
