import type { ReviewOutput } from '../answer/review-output.js';

export interface OverviewFacts {
  chunkCount: number;
  skipped: ReadonlyArray<{ path: string; reason: string }>;
  /** Reviewed files whose line-ending or whitespace-only changes were not shown to the model. */
  layoutOnlyPaths: readonly string[];
  /** The commit an incremental review started from; null for a full review. */
  incrementalSince: string | null;
  /** Why the model saw the diff without the code around it, when the repository could not be read. */
  contextUnavailable?: string;
}

/** Files named in a sentence: a few by name, the rest counted. */
const NAMED_FILES = 3;

export function nameFiles(paths: readonly string[]): string {
  const named = paths.slice(0, NAMED_FILES).map((path) => `\`${path}\``);
  const more = paths.length - named.length;
  if (more > 0) return `${named.join(', ')} and ${more} more`;
  return named.length <= 1 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}

/**
 * The model's overview, plus what the review covered and left out, so nothing is silently missing.
 * It is read on the review page and in the pull request: it names files, and points to the section
 * both show ("Skipped files"), never to a field of the API.
 */
export function reviewOverview(review: ReviewOutput, facts: OverviewFacts): string {
  const { chunkCount, skipped, layoutOnlyPaths, incrementalSince } = facts;
  const notes = [];
  if (incrementalSince) notes.push(`Reviewed the changes since ${incrementalSince.slice(0, 12)}; earlier findings on untouched code are kept.`);
  if (chunkCount > 1) notes.push(`This pull request was reviewed in ${chunkCount} parts.`);
  if (skipped.length === 1) notes.push(`Skipped \`${skipped[0]!.path}\`: ${skipped[0]!.reason}.`);
  else if (skipped.length > 1) notes.push(`Skipped ${skipped.length} files: ${nameFiles(skipped.map((file) => file.path))}; each is listed under “Skipped files” with its reason.`);
  if (layoutOnlyPaths.length > 0) notes.push(`Line-ending and whitespace-only changes were not reviewed in ${nameFiles(layoutOnlyPaths)}.`);
  const unverified = review.comments.filter((comment) => 'verified' in comment && comment.verified === false).length;
  if (unverified > 0) notes.push(`${unverified} finding${unverified === 1 ? ' was' : 's were'} not confirmed by the verification pass and ${unverified === 1 ? 'is' : 'are'} marked unverified.`);
  if (facts.contextUnavailable) notes.push(`The repository's code could not be read (${facts.contextUnavailable}): this review saw the diff without the code around it.`);
  if (chunkCount === 0) notes.push('Nothing in this diff needed a review.');
  return [review.summary.overview, ...notes].filter(Boolean).join('\n\n');
}
