import pLimit from 'p-limit';
import { UnrecoverableJobError, type Job, type JobQueue } from '../../adapters/queue/job-queue.js';
import type { ModelChoice, ModelRouter } from '../../ai/model-router.js';
import type { ReadingHosts } from '../../code-hosts/code-hosts.js';
import type { PullRequest, Review, ReviewCoverage, ReviewMode, User, WorkspaceSettings } from '../../db/schema/index.js';
import type { UsageContext } from '../../ai/usage-meter.js';
import { AppError } from '../../lib/app-error.js';
import type { Logger } from '../../lib/logger.js';
import type { FindingFeedbackRepository } from '../../repositories/finding-feedback-repository.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import { globMatcher, instructionMatcher } from '../../repository-config/path-globs.js';
import { DEFAULT_REPOSITORY_CONFIG, type RepositoryConfig } from '../../repository-config/repository-config-schema.js';
import { PROMPT_LEARNINGS } from '../../services/finding-feedback-service.js';
import { suppressRejected } from '../findings/suppress-findings.js';
import { MIN_TOKEN_BUDGET, type ReviewChunk } from '../prepare/chunking.js';
import { carryOverFindings, withCarried } from '../findings/carry-over.js';
import { assignFindingIds } from '../findings/fingerprint.js';
import { finalizeReview, type ChunkReview } from '../findings/merge-reviews.js';
import { prepareReviewInSlices } from '../prepare/prepare-review.js';
import { buildReviewPrompt, DEFAULT_MAX_FINDINGS, DEFAULT_OUTPUT_RESERVE, reviewPromptTokens, type PromptSettings, type PullRequestContext } from '../ask/prompts.js';
import { reviewChunkBudget } from '../ask/review-budget.js';
import type { ReviewOutput } from '../answer/review-output.js';
import { MAX_CHUNKS_SPLIT_FOR_SCOPES } from '../prepare/chunk-budget.js';
import { applyVerification, buildVerificationPrompt, withoutVerification } from '../answer/verification.js';
import type { CodeIndex } from '../../code-context/code-index.js';
import type { ContextBlock } from '../../code-context/context-block.js';
import { gatherChunkContext, type ContextWanted } from '../../code-context/gather-context.js';
import type { CodeSnapshots } from '../../code-context/snapshot/code-snapshots.js';
import type { ContextLevel } from '../../repository-config/repository-config-schema.js';
import { addStats, fitContext, NO_CONTEXT, type ShownBlock } from '../ask/context-section.js';
import type { ContextStats, ReviewContextSummary } from '../../domain/review-content.js';
import type { RejectedFinding } from '../../domain/findings.js';
import { changedLinesOf, removalOnlyLinesOf } from '../prepare/chunk-lines.js';
import { BaseScopes } from '../../code-context/base-scopes.js';
import type { SnapshotSource } from '../../code-context/snapshot/snapshot-source.js';
import { reviewTools, type ToolCallRecord } from '../ask/review-tools.js';
import { builtPromptTokens, fitChunkContext, promptRoom } from '../ask/chunk-context.js';
import { splitForScopes } from '../ask/split-for-scopes.js';
import { askForReview, askForVerification } from '../ask/model-review.js';
import { reviewOverview } from './review-overview.js';
import { isCurrentRun } from './review-runs.js';
import { runMember } from './usage-member.js';
import { pullRequestOwner, type Owner } from '../../domain/owners.js';

/** When a model's catalog does not say, assume a context most current chat models exceed. */
export const DEFAULT_CONTEXT_LENGTH = 32_000;
/** Model calls of one review at once: bounded so a 2,000-file PR does not open 250 connections. */
export const CHUNK_CONCURRENCY = 3;

export interface ReviewStepDeps {
  reviews: ReviewRepository;
  models: ModelRouter;
  /** The change's code host: its diffs, files and snapshot are read from it. */
  readers: ReadingHosts;
  /** The owner's email that the review is ready goes out through it (`reviewEmail`), off the review's path. */
  queue: JobQueue;
  log: Logger;
  /** `REVIEW_MAX_FILE_DIFF_BYTES`: a file's diff above it is skipped as too large (default 1 MiB). */
  maxFileDiffBytes?: number;
  /** The team's verdicts and learnings (decisions.md §10). */
  feedback: FindingFeedbackRepository;
  /** The reviewed commit's code (decisions.md §11), read from the change's host (`readers`); without it the model sees the diff alone. */
  snapshots?: CodeSnapshots;
}

/**
 * The blocks a review records for its page (`reviewRawJSON.contextBlocks`), with their chunk: at
 * most this many, so a 2,000-file pull request's record stays small; `context` still counts them all.
 */
const MAX_RECORDED_BLOCKS = 400;

/**
 * `extractedPrContent`: the review itself. The diff (or, after a push, the diff since the last
 * review) is parsed, filtered, split into chunks that fit the model's context, reviewed chunk by
 * chunk, and the findings are anchored to the diff, filtered and merged; deep mode adds the full
 * files and a verification pass. Nothing reviewable is left out: every reviewable line is in a chunk.
 * The pull request when this run completed its review (its outcome is then published, decisions.md §8).
 */
export async function reviewContent(deps: ReviewStepDeps, job: Job<'extractedPrContent'>): Promise<PullRequest | undefined> {
  const { pullRequestId, runId, memberId } = job.payload;
  const run = await deps.reviews.loadRun(pullRequestId);
  if (run === undefined || !isCurrentRun(run.review, runId)) return undefined;
  if (run.pr.diffContent === null) return undefined;

  // Before the model's work: a host that cannot name the commit fails the job while retrying is cheap.
  const reviewdSha = await fullCommitSha(deps, run);
  const { output, coverage } = await reviewChange(deps, pullRequestChange(deps, run, run.pr.diffContent, runMember(deps.readers, run, memberId)));
  return (await storeReview(deps, run, runId, output, coverage, reviewdSha)) ? run.pr : undefined;
}

/** The reviewed commit's full hash: the run's own, unless its host named it by a prefix (Bitbucket, decisions.md §16). */
async function fullCommitSha(deps: ReviewStepDeps, { review, pr, owner }: ReviewRun): Promise<string> {
  const sha = review.headSha ?? pr.headSha;
  if (/^[0-9a-f]{40}$/i.test(sha)) return sha;
  const reader = await deps.readers.reader(pr, owner);
  return reader.fullCommitSha === undefined ? sha : reader.fullCommitSha(sha);
}

/**
 * A change the engine reviews: a pull request's run (GitHub, GitLab), or a diff sent by the command
 * line (decisions.md §17). Everything the engine needs of it, whatever it came from.
 */
export interface ChangeUnderReview {
  /** Whose settings, keys and allowance pay, and whose learnings and rejected findings apply (decisions.md §10, §15). */
  owner: Owner;
  /** The member the organization's usage is attributed to (`runMember`); null for a personal change or when no member triggered it. */
  memberId: string | null;
  /** `owner/name`: the learnings and rejected findings of that repository apply; null for none. */
  repositoryName: string | null;
  mode: ReviewMode;
  settings: WorkspaceSettings | null;
  /** What the generations are recorded as (decisions.md §14). */
  usage: UsageContext;
  pullRequest?: PullRequestContext;
  config: RepositoryConfig;
  /** The diff to review: the whole change, or after a push what the push changed (`incrementalSince`). */
  diff: string;
  /** The last reviewed commit when `diff` is only a push's. */
  incrementalSince: string | null;
  /** The reviewed commit, when there is one: the context's heading names it. */
  headSha: string | null;
  /** The commit the diff's old side is, for hunks that only remove lines; null when it cannot be read. */
  baseSha: string | null;
  /** The findings of the change's previous review, which keep their ids (and, incremental, carry over). */
  previousFindings: Array<ReviewOutput['comments'][number] & { id?: string }>;
  /** The head's code (decisions.md §11); `{}` when there is none to read. */
  openCode(changedPaths: readonly string[]): Promise<OpenedCode>;
  /** Told the number of chunks once planned, then once per chunk reviewed. */
  progress?: { planned(total: number): Promise<void>; chunkDone(): Promise<void> };
}

export interface OpenedCode {
  index?: CodeIndex;
  source?: SnapshotSource;
  unavailable?: string;
}

/** What the engine produced for a change: the stored review's JSON and its coverage. */
export interface ChangeReviewed {
  output: ReturnType<typeof reviewOutput>;
  coverage: ReviewCoverage;
}

/** The engine's dependencies, whatever the change. */
export type EngineDeps = Pick<ReviewStepDeps, 'log' | 'maxFileDiffBytes'> & { models: Pick<ModelRouter, 'resolve'>; feedback: Pick<FindingFeedbackRepository, 'forReview'> };

/** Reviews one change: the model and feedback, the plan, the code context, the chunks asked, the findings merged. */
export async function reviewChange(deps: EngineDeps, change: ChangeUnderReview): Promise<ChangeReviewed> {
  const { choice, rejected, learnings } = await modelAndFeedback(deps, change);
  const plan = await planReview(deps, change, choice, learnings);
  const context = await chunkContext(change, plan);
  const planned = await planChunks(deps.log, plan, context);
  await change.progress?.planned(planned.length);
  const { progress } = change;
  const parts = await reviewChunks(deps.log, choice, planned, plan, context, progress && (() => progress.chunkDone()));
  const output = reviewOutput(change, plan, context, choice, planned, parts, rejected);
  return { output, coverage: plan.prepared.coverage };
}

type ReviewRun = NonNullable<Awaited<ReturnType<ReviewRepository['loadRun']>>>;

/** A pull request's run as a change to review: its host's code, its previous findings, its push. */
function pullRequestChange(deps: ReviewStepDeps, { review, pr, owner, settings }: ReviewRun, diffContent: string, memberId: string | null): ChangeUnderReview {
  const incremental = review.incrementalDiff !== null;
  return {
    owner: pullRequestOwner(pr),
    memberId,
    repositoryName: pr.repositoryName,
    mode: review.mode,
    settings,
    usage: { kind: 'review', pullRequestId: pr.id, repositoryName: pr.repositoryName },
    pullRequest: { title: pr.title, body: deps.readers.description(pr), headBranch: pr.headBranch, baseBranch: pr.baseBranch },
    config: (review.repositoryConfig as RepositoryConfig | null) ?? DEFAULT_REPOSITORY_CONFIG,
    diff: review.incrementalDiff ?? diffContent,
    incrementalSince: incremental ? review.reviewdSha : null,
    headSha: review.headSha ?? pr.headSha,
    baseSha: incremental ? review.reviewdSha : pr.baseSha,
    previousFindings: previousFindings(review),
    openCode: (changedPaths) => openCode(deps, pr, owner, review.headSha ?? pr.headSha, changedPaths),
  };
}
/** A chunk's prompt without the chunk. */
type PromptBase = Omit<Parameters<typeof buildReviewPrompt>[0], 'chunk' | 'chunkCount'>;

/**
 * The model and the team's feedback (decisions.md §10), read side by side: two round trips of
 * every review's path, which the review workers' small concurrency turns into drain time.
 */
async function modelAndFeedback(deps: EngineDeps, { owner, memberId, repositoryName, mode, settings, usage }: ChangeUnderReview) {
  const [choice, { rejected, learnings }] = await Promise.all([
    // The owner's keys, settings and allowance: an organization's pull request uses the organization's (decisions.md §15).
    deps.models.resolve({ owner, memberId, mode, settings, usage }).catch((error: unknown) => {
      // No model this owner may use (allowance spent, spend limit reached, unknown model): retrying will not change that.
      if (error instanceof AppError && error.statusCode < 500) throw new UnrecoverableJobError(error.message);
      throw error;
    }),
    repositoryName === null ? { rejected: [], learnings: [] } : deps.feedback.forReview(owner, repositoryName, PROMPT_LEARNINGS),
  ]);
  return { choice, rejected, learnings };
}

/** What preparing the diff decided: the files and chunks, and the room each chunk's prompt has. */
interface ReviewPlan {
  prepared: Awaited<ReturnType<typeof prepareReviewInSlices>>;
  /** What the repository's `.ai-review.yml` adds (decisions.md §10). */
  config: RepositoryConfig;
  incremental: boolean;
  level: ContextLevel;
  contextLength: number;
  outputReserve: number;
  /** The chunks were sized to leave room for their context (a small diff). */
  keepsContextRoom: boolean;
  large: boolean;
  headSha: string | null;
  reviewablePaths: string[];
  promptFor: (chunk: ReviewChunk) => PromptBase;
}

/** Parses and filters the diff and splits it into chunks sized for the model's context. */
async function planReview(deps: EngineDeps, change: ChangeUnderReview, choice: ModelChoice, learnings: string[]): Promise<ReviewPlan> {
  const { config, mode, settings } = change;
  const instructionsFor = instructionMatcher(config.instructions);
  const contextLength = choice.contextLength ?? DEFAULT_CONTEXT_LENGTH;
  const outputReserve = DEFAULT_OUTPUT_RESERVE[mode];
  const level: ContextLevel = config.context ?? 'full';
  let keepsContextRoom = false;
  let large = false;
  const prompt = {
    mode,
    settings: settings satisfies PromptSettings | null,
    ...(change.pullRequest ? { pullRequest: change.pullRequest } : {}),
    instructions: config.instructions.map((instruction) => instruction.text),
    learnings,
  };
  const sizeChunks = reviewChunkBudget(prompt, { contextLength, outputReserve, mode, level });
  const prepared = await prepareReviewInSlices(change.diff, {
    maxFileDiffBytes: deps.maxFileDiffBytes,
    exclude: globMatcher(config.exclude),
    include: globMatcher(config.include),
    tokenBudget: (filtered) => {
      const budget = sizeChunks(filtered);
      if (budget.withoutContext < MIN_TOKEN_BUDGET) {
        throw new UnrecoverableJobError(`The model ${choice.modelId} has a context of ${contextLength} tokens: too small to review this pull request; choose a larger model`);
      }
      keepsContextRoom = budget.keepsContextRoom;
      large = budget.large;
      return budget.tokens;
    },
  });
  const reviewablePaths = prepared.reviewable.map((file) => file.path);
  const promptBase = { ...prompt, skipped: prepared.skipped, reviewablePaths };
  return {
    prepared,
    config,
    incremental: change.incrementalSince !== null,
    level,
    contextLength,
    outputReserve,
    keepsContextRoom,
    large,
    headSha: change.headSha,
    reviewablePaths,
    promptFor: (chunk) => ({ ...promptBase, instructions: instructionsFor(chunk.files) }),
  };
}

/** How each chunk gets the code around its changes. */
interface ChunkContext {
  index: CodeIndex | undefined;
  /** Set when some hunk only removes lines: reads their files at the base commit. */
  base: BaseScopes | undefined;
  wanted: ContextWanted;
  /** Deep mode with a snapshot: the model may call the code tools. */
  tools: boolean;
  /** Every tool call of the review, in the order made. */
  toolCalls: ToolCallRecord[];
  commit: string | null;
  /** Tokens a prompt of this many tokens leaves for context within the model's context length and the output reserve. */
  room: (promptTokens: number) => number;
  /** Why the head commit's code could not be read, when it could not. */
  unavailable?: string;
}

/** Opens the head commit's code, and the base's for hunks that only remove lines, when the review shows context. */
async function chunkContext(change: ChangeUnderReview, plan: ReviewPlan): Promise<ChunkContext> {
  const { chunks } = plan.prepared;
  const { mode } = change;
  const code: OpenedCode = plan.level !== 'none' && chunks.length > 0 ? await change.openCode(plan.reviewablePaths) : {};
  // Hunks that only remove lines get their scope at the base too (decisions.md §11): the diff's old side.
  const baseCommit = change.baseSha;
  const base = code.index && code.source && baseCommit && chunks.some((chunk) => removalOnlyLinesOf(chunk).length > 0) ? new BaseScopes(code.source, baseCommit) : undefined;
  return {
    index: code.index,
    base,
    // A large pull request's context never builds the symbol index (decisions.md §11): definitions
    // through imports and the changed file, no callers. Deep mode's tools may still build it.
    wanted: { definitions: plan.level === 'full', callers: plan.level === 'full' && mode === 'deep' && !plan.large, symbolIndex: !plan.large },
    tools: mode === 'deep' && code.index !== undefined,
    toolCalls: [],
    commit: plan.headSha,
    room: (promptTokens) => promptRoom(promptTokens, plan.contextLength, plan.outputReserve),
    ...(code.unavailable !== undefined ? { unavailable: code.unavailable } : {}),
  };
}

type PlannedChunk = { chunk: ReviewChunk; blocks?: ContextBlock[] };

/** A small diff's chunk whose enclosing scopes do not fit beside it is split again (decisions.md §11). */
async function planChunks(log: Logger, plan: ReviewPlan, context: ChunkContext): Promise<PlannedChunk[]> {
  const { chunks } = plan.prepared;
  if (!plan.keepsContextRoom || !context.index) return chunks.map((chunk) => ({ chunk }));
  return splitForScopes(chunks, {
    gather: (chunk) => chunkBlocks(log, context, chunk),
    room: (chunk, chunkCount) => context.room(reviewPromptTokens({ ...plan.promptFor(chunk), chunk, chunkCount, tools: context.tools })),
    tools: context.tools,
    commit: plan.headSha,
    maxChunks: MAX_CHUNKS_SPLIT_FOR_SCOPES,
  });
}

type ChunkOutcome = ChunkReview & { context: ContextStats; shown: ShownBlock[] };

/** Every chunk asked of the model, a few at a time. */
function reviewChunks(log: Logger, choice: ModelChoice, planned: PlannedChunk[], plan: ReviewPlan, context: ChunkContext, chunkDone?: () => Promise<void>): Promise<ChunkOutcome[]> {
  const limit = pLimit(CHUNK_CONCURRENCY);
  return Promise.all(
    planned.map(({ chunk, blocks }) =>
      limit(async () => {
        const outcome = await reviewChunk(log, choice, chunk, planned.length, plan.promptFor(chunk), context, blocks);
        await chunkDone?.();
        return outcome;
      }),
    ),
  );
}

/** The findings of all chunks merged, carried over after a push, given ids, and those the team rejected left out. */
function reviewFindings(change: ChangeUnderReview, plan: ReviewPlan, parts: ChunkOutcome[], rejected: RejectedFinding[]) {
  const { changes, reviewable } = plan.prepared;
  const lastFindings = change.previousFindings;
  const previous = plan.incremental ? lastFindings : [];
  const { review: final, counts } = finalizeReview(parts, reviewable, {
    maxFindings: DEFAULT_MAX_FINDINGS[change.mode],
    incremental: plan.incremental ? { previous, pushDiff: changes } : undefined,
  });
  const identified = assignFindingIds(plan.incremental ? withCarried(final.comments, carryOverFindings(previous, changes)) : final.comments, lastFindings);
  const { kept: comments, suppressed } = suppressRejected(identified, rejected);
  return { final, comments, dropped: { ...counts, suppressed } };
}

/** The stored review (`reviewRawJson`): the findings, what was reviewed and skipped, and what the prompts held. */
function reviewOutput(change: ChangeUnderReview, plan: ReviewPlan, context: ChunkContext, choice: ModelChoice, planned: PlannedChunk[], parts: ChunkOutcome[], rejected: RejectedFinding[]) {
  const { skipped, skippedChanges } = plan.prepared;
  const { config, incremental } = plan;
  const reviewed = planned.map((entry) => entry.chunk);
  const contextSummary: ReviewContextSummary = {
    ...parts.reduce((sum, part) => addStats(sum, part.context), NO_CONTEXT),
    toolCalls: context.toolCalls.length,
    snapshot: context.index?.snapshot.mode ?? 'none',
  };
  const contextBlocks = reviewed.flatMap((chunk, at) => parts[at]!.shown.map((block) => ({ chunk: chunk.index, ...block }))).slice(0, MAX_RECORDED_BLOCKS);
  const { final, comments, dropped } = reviewFindings(change, plan, parts, rejected);
  return {
    ...final,
    summary: {
      ...final.summary,
      overview: reviewOverview(final, { chunkCount: reviewed.length, skipped, layoutOnlyPaths: [...new Set(skippedChanges.map((entry) => entry.path))], incrementalSince: change.incrementalSince, contextUnavailable: context.unavailable }),
      findingsCount: comments.length,
    },
    comments,
    reviewedFiles: plan.reviewablePaths,
    skippedFiles: skipped,
    skippedChanges,
    droppedFindings: dropped,
    model: { id: choice.modelId, source: choice.source },
    reviewedCommit: change.headSha,
    ...(incremental ? { incrementalSince: change.incrementalSince } : {}),
    configProblems: config.problems,
    context: contextSummary,
    // What each chunk's prompt held, for the review page (decisions.md §11's transparency).
    ...(contextBlocks.length > 0 ? { contextBlocks } : {}),
    // Every call deep mode's tools made, refused ones included (decisions.md §11).
    ...(context.toolCalls.length > 0 ? { toolCalls: context.toolCalls } : {}),
    repositoryConfig: { inlineMinSeverity: config.inlineMinSeverity },
  };
}

/** Stores the review if this run is still current, and queues the owner's email; false when a newer run took over. */
async function storeReview(deps: ReviewStepDeps, { pr, owner }: ReviewRun, runId: string, output: ChangeReviewed['output'], coverage: ReviewCoverage, reviewdSha: string): Promise<boolean> {
  const completed = await deps.reviews.complete(pr.id, runId, {
    reviewSummary: output.summary.overview,
    reviewRawJson: output,
    reviewdSha,
    coverage,
  });
  if (!completed) return false;
  if (owner.emailNotification) {
    // The review is stored: an email that cannot be queued is a log line, never the review's failure.
    await deps.queue.add('reviewEmail', { pullRequestId: pr.id, runId }, { jobId: `email-${runId}` }).catch((error: unknown) => deps.log.warn({ err: error, pullRequestId: pr.id }, 'could not queue the review email'));
  }
  return true;
}

async function reviewChunk(
  log: Logger,
  choice: ModelChoice,
  chunk: ReviewChunk,
  chunkCount: number,
  base: PromptBase,
  context: ChunkContext,
  gathered?: ContextBlock[],
): Promise<ChunkOutcome> {
  // Counting the prompt's tokens is the chunk's largest cost before the call: only when something is to fit.
  const toFit = gathered ? gathered.length > 0 : context.index !== undefined;
  const room = toFit || context.tools ? context.room(reviewPromptTokens({ ...base, chunk, chunkCount, tools: context.tools })) : 0;
  // Gathered for the room the prompt leaves. Deep mode's (tools keep part of it) is not bounded: its
  // verification fits the same blocks to a prompt of its own, unknown until the findings are in.
  const blocks = gathered ?? (context.index ? await chunkBlocks(log, context, chunk, base.mode === 'deep' || context.tools ? undefined : room) : []);
  // With tools, room is kept for their answers, which join the request as it goes on.
  const fitted = blocks.length > 0 ? fitChunkContext(blocks, room, context.tools, context.commit) : { section: null, stats: NO_CONTEXT, shown: [] };
  // Built once, with the context when some fitted (a 2,000-file pull request built every prompt twice).
  const prompt = buildReviewPrompt({ ...base, chunk, chunkCount, tools: context.tools, ...(fitted.section ? { codeContext: fitted.section } : {}) });
  const tools = context.tools && context.index ? reviewTools(context.index, chunk.index, room - fitted.stats.tokens, context.toolCalls) : undefined;
  const withoutTools = tools ? buildReviewPrompt({ ...base, chunk, chunkCount, codeContext: fitted.section }) : undefined;
  let review = await askForReview(choice.model, prompt, { tools, withoutTools });
  if (base.mode === 'deep' && review.comments.length > 0) {
    // A second look: the model re-checks each finding against the code and drops what it rejects.
    // The first pass is paid for: a verification that fails keeps its findings, marked unverified.
    const input = { findings: review.comments, chunk, settings: base.settings };
    const bareVerification = buildVerificationPrompt(input);
    const verificationContext = blocks.length > 0 ? fitContext(blocks, context.room(builtPromptTokens(bareVerification)), context.commit).section : null;
    const verificationPrompt = verificationContext ? buildVerificationPrompt({ ...input, codeContext: verificationContext }) : bareVerification;
    const verified = await askForVerification(choice.meteredAs({ kind: 'verification' }), verificationPrompt).then(
      (verification) => applyVerification(review.comments, verification),
      (error: unknown) => {
        log.warn({ err: error, chunk: chunk.index }, 'the verification failed: findings kept unverified');
        return withoutVerification(review.comments);
      },
    );
    review = { ...review, comments: verified.findings };
  }
  return { review, changedLines: chunk.changedLines, context: fitted.stats, shown: fitted.shown };
}

/** The chunk's context blocks; a file the reviewer cannot read costs its context, never the review. */
async function chunkBlocks(log: Logger, context: ChunkContext, chunk: ReviewChunk, room?: number): Promise<ContextBlock[]> {
  try {
    const blocks = await gatherChunkContext(context.index!, changedLinesOf(chunk), context.wanted, room);
    const removed = context.base ? removalOnlyLinesOf(chunk) : [];
    if (removed.length === 0) return blocks;
    // Scopes at the base join the head's scopes, ahead of definitions and callers.
    const afterScopes = blocks.findLastIndex((block) => block.kind === 'scope') + 1;
    return [...blocks.slice(0, afterScopes), ...(await context.base!.blocks(removed, blocks)), ...blocks.slice(afterScopes)];
  } catch (error) {
    log.warn({ err: error, chunk: chunk.index }, 'the code around a chunk could not be read: reviewed with its diff alone');
    return [];
  }
}

/**
 * The head commit's code (decisions.md §11), read with the diff's token. A snapshot that cannot be
 * built (the code host refusing, a network failure) never fails the review: it goes on with the
 * diff alone and says why in its overview.
 */
async function openCode(deps: ReviewStepDeps, pr: PullRequest, owner: User, commit: string, changedPaths: readonly string[]): Promise<OpenedCode> {
  if (!deps.snapshots) return {};
  try {
    const source = (await deps.readers.reader(pr, owner)).snapshotSource();
    return { index: await deps.snapshots.open(source, commit, changedPaths), source };
  } catch (error) {
    deps.log.warn({ err: error, pullRequestId: pr.id }, 'the repository snapshot could not be read: reviewing the diff alone');
    return { unavailable: error instanceof Error ? error.message.slice(0, 200) : 'unknown error' };
  }
}

function previousFindings(review: Review) {
  const raw = review.reviewRawJson as { comments?: Array<ReviewOutput['comments'][number] & { id?: string }> } | null;
  return raw?.comments ?? [];
}
