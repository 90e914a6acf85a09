import type { ReviewMode } from '../../db/schema/reviews.js';
import type { WorkspaceSettings } from '../../db/schema/workspace-settings.js';
import { renderChunk, type ReviewChunk } from '../prepare/chunking.js';
import { DIFF_FORMAT_GUIDE } from '../prepare/diff/render-for-model.js';
import type { SkippedFile } from '../prepare/skip-rules.js';
import { MODE_PROMPTS, OUTPUT_INSTRUCTIONS, UNTRUSTED_INPUT_NOTICE } from './prompt-texts.js';
import { countRecurringTokens, countTokens } from '../prepare/tokens.js';
import { MAX_TOOL_CALLS } from './review-tools.js';

export { MODE_PROMPTS, OUTPUT_INSTRUCTIONS, VERIFICATION_PROMPT } from './prompt-texts.js';

/** The user's prompt settings (workspace settings; `foucsedModePrompt` is the API's spelling). */
export type PromptSettings = Partial<Pick<WorkspaceSettings, 'systemPrompt' | 'quickModePrompt' | 'foucsedModePrompt' | 'deepModePrompt'>>;

export interface PullRequestContext {
  title: string;
  body?: string | null;
  headBranch?: string;
  baseBranch?: string;
}

export interface ReviewPromptInput {
  mode: ReviewMode;
  settings?: PromptSettings | null;
  pullRequest?: PullRequestContext;
  chunk: ReviewChunk;
  /** Chunks of this review; with more than one the model is told it sees a part. */
  chunkCount: number;
  skipped?: readonly SkippedFile[];
  /** Reviewable paths of the pull request (all chunks); those outside this chunk are listed as reviewed elsewhere. */
  reviewablePaths?: readonly string[];
  /** The read-only code around the chunk's changes, already fitted to the room left (`fitContext`). */
  codeContext?: string | null;
  /** Deep mode: the model may call the code tools (`reviewTools`). */
  tools?: boolean;
  /** `.ai-review.yml`'s instructions for the files of this chunk (all of them when sizing the prompt). */
  instructions?: readonly string[];
  /** The notes of findings this team marked wrong in the repository, newest first. */
  learnings?: readonly string[];
}

/** For the AI SDK: `generateObject({ system, prompt, schema: reviewOutputSchema })`. */
export interface BuiltPrompt {
  system: string;
  prompt: string;
}

/** Suggested output reserves per mode (tokens): a long deep review with fix prompts needs room. */
export const DEFAULT_OUTPUT_RESERVE: Record<ReviewMode, number> = { quick: 2_000, focused: 8_000, deep: 12_000 };

/** Quick mode keeps the few most severe findings; pass to `selectFindings({ maxFindings })`. */
export const DEFAULT_MAX_FINDINGS: Record<ReviewMode, number | undefined> = { quick: 3, focused: undefined, deep: undefined };

const LISTED_SKIPPED = 40;
const LISTED_OTHER_FILES = 100;
const DESCRIPTION_CHARS = 4_000;

/** The mode prompt: the user's override for the mode when set, else the default. */
export function modePrompt(mode: ReviewMode, settings?: PromptSettings | null): string {
  const override = mode === 'quick' ? settings?.quickModePrompt : mode === 'focused' ? settings?.foucsedModePrompt : settings?.deepModePrompt;
  return override?.trim() ? override.trim() : MODE_PROMPTS[mode];
}

/**
 * The prompt of one chunk. System: the user's system prompt, then the mode prompt. Prompt: the pull
 * request, the chunk's diff (with how to read it), the code around it, what is reviewed
 * elsewhere or skipped, and the output instructions last, where models follow them best.
 */
export function buildReviewPrompt(input: ReviewPromptInput): BuiltPrompt {
  return assemble(input, renderChunk(input.chunk));
}

/**
 * Tokens of everything in a chunk's prompt except its diff, plus slack for the chunk description
 * and the provider's message framing. The chunk budget is then
 * `contextLength − promptOverheadTokens(…) − outputReserve`, less the room kept for the code context.
 */
export function promptOverheadTokens(input: Omit<ReviewPromptInput, 'chunk' | 'codeContext'>): number {
  const empty: ReviewChunk = { index: input.chunkCount - 1, segments: [], tokens: 0, changedLines: 0, files: [], description: '', maxLineChars: 0 };
  const { system, prompt } = sections({ ...input, chunk: empty }, '');
  return sectionTokens(system) + sectionTokens(prompt) + PROMPT_SLACK;
}

/**
 * The tokens of a chunk's prompt (`buildReviewPrompt(input)`) without counting its diff again: the
 * chunk's own count (`chunk.tokens`, its rendered parts counted as chunking cut them) and the other
 * sections counted one by one, the fixed ones remembered. Within a few tokens of the built prompt's
 * count; a chunk's room subtracts PROMPT_SLACK besides. Counting each chunk's whole prompt again to
 * measure its room was 2 s of a 2,000-file pull request's review (209 chunks).
 */
export function reviewPromptTokens(input: ReviewPromptInput): number {
  const { system, prompt } = sections(input, '');
  return sectionTokens(system) + sectionTokens(prompt) + input.chunk.tokens;
}

/** Tokens for the chunk description and the provider's message framing, which the count does not see. */
export const PROMPT_SLACK = 300;
const SEPARATOR = '\n\n';

/**
 * A part of a prompt: pieces joined as they are. A piece is `recurring` when the same text comes back
 * chunk after chunk and review after review (its count is remembered); the others are counted each
 * time. Counting the pieces apart keeps a chunk's varying words (its part number, the count of other
 * files) from making a long fixed text new: the list of the other files, 2,000 tokens for a large
 * pull request, was counted again for every chunk.
 */
type Section = readonly Piece[];

interface Piece {
  text: string;
  recurring: boolean;
}

const fixed = (text: string): Section => [{ text, recurring: true }];
const varying = (text: string): Section => [{ text, recurring: false }];

/**
 * The sections and their pieces counted one by one, and each separator as a token: within a few
 * tokens of the joined text's count (a part's closing punctuation may merge with what follows it
 * when joined, so the parts counted apart are, if anything, more), and PROMPT_SLACK covers those.
 */
function sectionTokens(sections: readonly Section[]): number {
  let tokens = Math.max(0, sections.length - 1);
  for (const section of sections) for (const { text, recurring } of section) tokens += recurring ? countRecurringTokens(text) : countTokens(text);
  return tokens;
}

function assemble(input: ReviewPromptInput, diff: string): BuiltPrompt {
  const { system, prompt } = sections(input, diff);
  return { system: joined(system), prompt: joined(prompt) };
}

/** The sections' pieces and separators in one join: a join per section copied a chunk's diff (tens of KB) once more. */
function joined(sections: readonly Section[]): string {
  const texts: string[] = [];
  sections.forEach((section, at) => {
    if (at > 0) texts.push(SEPARATOR);
    for (const piece of section) texts.push(piece.text);
  });
  return texts.join('');
}

function sections(input: ReviewPromptInput, diff: string): { system: Section[]; prompt: Section[] } {
  // The repository's instructions (its base branch) and the team's learnings come from the
  // maintainers, not from the pull request's author: they belong with the reviewer's instructions.
  const system = [input.settings?.systemPrompt?.trim(), modePrompt(input.mode, input.settings), repositorySection(input)]
    .filter((text): text is string => Boolean(text))
    .map(fixed);
  const prompt: Section[] = [fixed(UNTRUSTED_INPUT_NOTICE)];
  if (input.pullRequest) prompt.push(varying(pullRequestSection(input.pullRequest)));
  prompt.push(diffSection(input, diff));
  if (input.codeContext) prompt.push(varying(input.codeContext.trimEnd()));
  if (input.tools) prompt.push(fixed(TOOLS_NOTE));
  const scope = scopeSection(input);
  if (scope) prompt.push(scope);
  prompt.push(fixed(`# How to answer\n${OUTPUT_INSTRUCTIONS}`));
  return { system, prompt };
}

const TOOLS_NOTE = `# Reading more of the repository
You may call read_file, find_definition, find_references and search on the repository at the reviewed commit (at most ${MAX_TOOL_CALLS} calls, each answer shortened when long) to check what the code shown does not settle: a caller, a definition, a guard elsewhere. Do not call them to review other code. Then answer as below.`;

function repositorySection(input: ReviewPromptInput): string | null {
  const parts: string[] = [];
  if (input.instructions?.length) parts.push(`# This repository's instructions for these files\n${input.instructions.map((text) => `- ${text}`).join('\n')}`);
  if (input.learnings?.length) {
    parts.push(`# What this team told us about earlier findings (do not report such things again)\n${input.learnings.map((note) => `- ${note}`).join('\n')}`);
  }
  return parts.length > 0 ? parts.join('\n\n') : null;
}

function pullRequestSection(pullRequest: PullRequestContext): string {
  const lines = [`# Pull request\nTitle: ${pullRequest.title}`];
  if (pullRequest.headBranch && pullRequest.baseBranch) lines.push(`Branches: ${pullRequest.headBranch} into ${pullRequest.baseBranch}`);
  const body = pullRequest.body?.trim();
  if (body) lines.push(`Description:\n<description>\n${body.length > DESCRIPTION_CHARS ? `${body.slice(0, DESCRIPTION_CHARS)}…` : body}\n</description>`);
  return lines.join('\n');
}

function diffSection(input: ReviewPromptInput, diff: string): Section {
  const part =
    input.chunkCount > 1
      ? `This is part ${input.chunk.index + 1} of ${input.chunkCount} of the diff (${input.chunk.description}). The other parts are reviewed separately: do not report something as missing or undefined because it is not in this part.\n`
      : '';
  return [
    { text: '# Diff\n', recurring: true },
    { text: part, recurring: false },
    { text: `${DIFF_FORMAT_GUIDE}\n\n<diff>\n`, recurring: true },
    { text: diff, recurring: false },
    { text: '</diff>', recurring: true },
  ];
}

function scopeSection(input: ReviewPromptInput): Section | null {
  const pieces: Piece[] = [];
  const others = otherFiles(input.reviewablePaths ?? [], input.chunk.files);
  if (others.count > 0) {
    // The same first files for most chunks of a pull request, and the count after them differs.
    pieces.push({ text: `Also changed in this pull request, reviewed in other parts: ${others.listed.join(', ')}`, recurring: true });
    pieces.push({ text: `${others.count > others.listed.length ? ` and ${others.count - others.listed.length} more` : ''}.`, recurring: false });
  }
  const skipped = input.skipped ?? [];
  if (skipped.length > 0) {
    const listed = skipped.slice(0, LISTED_SKIPPED).map((file) => `- ${file.path} (${file.reason})`);
    if (skipped.length > LISTED_SKIPPED) listed.push(`- and ${skipped.length - LISTED_SKIPPED} more`);
    pieces.push({ text: `${pieces.length > 0 ? '\n' : ''}Changed but not shown (not reviewed):\n${listed.join('\n')}`, recurring: true });
  }
  return pieces.length > 0 ? [{ text: '# Other files\n', recurring: true }, ...pieces] : null;
}

/** A review's paths as a set, made once per review (its chunks' prompts are built from the same list). */
const pathSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * The paths not in this chunk: the first LISTED_OTHER_FILES of them and how many there are, without
 * walking the whole list for every chunk (2,000 paths, for each of a large pull request's 209 chunks,
 * three times: its room, its prompt, its prompt without tools).
 */
function otherFiles(paths: readonly string[], here: readonly string[]): { listed: string[]; count: number } {
  const inChunk = new Set(here);
  const listed: string[] = [];
  for (const path of paths) {
    if (listed.length === LISTED_OTHER_FILES) break;
    if (!inChunk.has(path)) listed.push(path);
  }
  let all = pathSets.get(paths);
  if (all === undefined) pathSets.set(paths, (all = new Set(paths)));
  let shared = 0;
  for (const path of inChunk) if (all.has(path)) shared++;
  return { listed, count: all.size - shared };
}
