import { z } from 'zod';
import { REVIEW_MODES, type ReviewMode } from '../db/schema/reviews.js';

/** The file's name, at the repository's root, read from the pull request's base commit. */
export const REPOSITORY_CONFIG_PATH = '.ai-review.yml';

export const SEVERITIES = ['CRITICAL', 'MAJOR', 'MINOR', 'INFO'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** `reviews.context` (decisions.md §11): the diff alone, with enclosing scopes, or with definitions too. */
export const CONTEXT_LEVELS = ['none', 'scope', 'full'] as const;
export type ContextLevel = (typeof CONTEXT_LEVELS)[number];

const glob = z.string().trim().min(1, 'must be a non-empty glob').max(500, 'must be at most 500 characters');
const globs = z.array(glob).max(200, 'must list at most 200 globs');

/**
 * Each key of `reviews:` with its own schema, so that one bad value takes its default and the
 * others still apply (decisions.md §10). `include` is this service's extension.
 */
export const REVIEW_KEYS = {
  auto: z.boolean(),
  drafts: z.boolean(),
  mode: z.enum(REVIEW_MODES),
  exclude: globs,
  include: globs,
  instructions: z
    .array(z.strictObject({ path: glob, text: z.string().trim().min(1, 'must not be empty').max(4_000, 'must be at most 4000 characters') }))
    .max(50, 'must list at most 50 instructions'),
  inline_min_severity: z.enum(SEVERITIES),
  context: z.enum(CONTEXT_LEVELS),
} as const;

export type ReviewKey = keyof typeof REVIEW_KEYS;

export interface PathInstruction {
  path: string;
  text: string;
}

/** A repository's review settings after the file was read: the file's valid keys over the defaults. */
export interface RepositoryConfig {
  /** Whether the repository holds the file at the base commit. */
  present: boolean;
  auto: boolean;
  drafts: boolean;
  /** Null: the file does not name one (an explicit request, else `focused`, decides). */
  mode: ReviewMode | null;
  exclude: string[];
  include: string[];
  instructions: PathInstruction[];
  inlineMinSeverity: Severity | null;
  /** What the prompt holds besides the diff; absent in runs stored before it existed (read as `full`). */
  context: ContextLevel;
  /** What was wrong in the file, each with its (1-based) line. */
  problems: ConfigProblem[];
}

export interface ConfigProblem {
  line: number;
  message: string;
}

/** A repository without the file: reviews behave exactly as without this feature. */
export const DEFAULT_REPOSITORY_CONFIG: RepositoryConfig = {
  present: false,
  auto: true,
  drafts: false,
  mode: null,
  exclude: [],
  include: [],
  instructions: [],
  inlineMinSeverity: null,
  context: 'full',
  problems: [],
};
