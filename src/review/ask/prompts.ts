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
  const { system, prompt } = sections(input, '', false);
  return sectionTokens(system) + sectionTokens(prompt) + input.chunk.tokens;
}

/** Tokens for the chunk description and the provider's message framing, which the count does not see. */
export const PROMPT_SLACK = 300;
const SEPARATOR = '\n\n';

/** A part of a prompt; `recurring` when the same text comes back review after review (its count is remembered). */
interface Section {
  text: string;
  recurring: boolean;
}

/**
 * The sections counted one by one, and each separator as a token: within a few tokens of the
 * joined text's count (a section's closing punctuation may merge with the newlines after it when
 * joined, so the parts counted apart are, if anything, more), and PROMPT_SLACK covers those.
 */
function sectionTokens(parts: readonly Section[]): number {
  let tokens = Math.max(0, parts.length - 1);
  for (const { text, recurring } of parts) tokens += recurring ? countRecurringTokens(text) : countTokens(text);
  return tokens;
}

function assemble(input: ReviewPromptInput, diff: string): BuiltPrompt {
  const { system, prompt } = sections(input, diff);
  const join = (parts: readonly Section[]) => parts.map((part) => part.text).join(SEPARATOR);
  return { system: join(system), prompt: join(prompt) };
}

/** `fixedDiffSection`: the diff's section is the same review after review (an empty chunk, sizing the prompt), so its count is remembered. */
function sections(input: ReviewPromptInput, diff: string, fixedDiffSection = diff === ''): { system: Section[]; prompt: Section[] } {
  // The repository's instructions (its base branch) and the team's learnings come from the
  // maintainers, not from the pull request's author: they belong with the reviewer's instructions.
  const system = [input.settings?.systemPrompt?.trim(), modePrompt(input.mode, input.settings), repositorySection(input)]
    .filter((text): text is string => Boolean(text))
    .map((text) => ({ text, recurring: true }));
  const prompt: Section[] = [{ text: UNTRUSTED_INPUT_NOTICE, recurring: true }];
  if (input.pullRequest) prompt.push({ text: pullRequestSection(input.pullRequest), recurring: false });
  prompt.push({ text: diffSection(input, diff), recurring: fixedDiffSection });
  if (input.codeContext) prompt.push({ text: input.codeContext.trimEnd(), recurring: false });
  if (input.tools) prompt.push({ text: TOOLS_NOTE, recurring: true });
  const scope = scopeSection(input);
  if (scope) prompt.push({ text: scope, recurring: false });
  prompt.push({ text: `# How to answer\n${OUTPUT_INSTRUCTIONS}`, recurring: true });
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

function diffSection(input: ReviewPromptInput, diff: string): string {
  const part =
    input.chunkCount > 1
      ? `This is part ${input.chunk.index + 1} of ${input.chunkCount} of the diff (${input.chunk.description}). The other parts are reviewed separately: do not report something as missing or undefined because it is not in this part.\n`
      : '';
  return `# Diff\n${part}${DIFF_FORMAT_GUIDE}\n\n<diff>\n${diff}</diff>`;
}

function scopeSection(input: ReviewPromptInput): string | null {
  const parts: string[] = [];
  const here = new Set(input.chunk.files);
  const elsewhere = (input.reviewablePaths ?? []).filter((path) => !here.has(path));
  if (elsewhere.length > 0) {
    const listed = elsewhere.slice(0, LISTED_OTHER_FILES).join(', ');
    const more = elsewhere.length > LISTED_OTHER_FILES ? ` and ${elsewhere.length - LISTED_OTHER_FILES} more` : '';
    parts.push(`Also changed in this pull request, reviewed in other parts: ${listed}${more}.`);
  }
  const skipped = input.skipped ?? [];
  if (skipped.length > 0) {
    const listed = skipped.slice(0, LISTED_SKIPPED).map((file) => `- ${file.path} (${file.reason})`);
    if (skipped.length > LISTED_SKIPPED) listed.push(`- and ${skipped.length - LISTED_SKIPPED} more`);
    parts.push(`Changed but not shown (not reviewed):\n${listed.join('\n')}`);
  }
  return parts.length > 0 ? `# Other files\n${parts.join('\n')}` : null;
}
