import type { DiffFile } from './diff/diff-types.js';
import { contentReason } from './content-rules.js';
import { withoutLayoutChanges, type LayoutReason } from './layout-changes.js';
import type { SkipReason } from './skip-reasons.js';
import { runToEnd, type Steps } from '../../lib/time-slices.js';

export interface SkippedFile {
  path: string;
  reason: SkipReason;
}

/** Changed lines of a reviewed file that were not shown to the model (see `withoutLayoutChanges`). */
export interface SkippedChanges {
  path: string;
  reason: LayoutReason;
  /** Removed plus added lines left out for this reason. */
  lines: number;
}

/** A file's diff above this size is skipped unless `include` names it (`REVIEW_MAX_FILE_DIFF_BYTES`). */
export const DEFAULT_MAX_FILE_DIFF_BYTES = 1_048_576;

export interface SkipOptions {
  /** `.ai-review.yml`'s `exclude` (the caller owns the pattern syntax): skipped before any other rule. */
  exclude?: (path: string) => boolean;
  /**
   * Paths the user wants reviewed whatever their size or content (`.ai-review.yml`): the size and
   * content rules pass them. Binary, deleted and unparseable files stay skipped, as do path rules.
   */
  include?: (path: string) => boolean;
  /** Bytes of one file's diff above which it is skipped as too large (default 1 MiB). */
  maxFileDiffBytes?: number;
  /**
   * Mean length of the added lines above which a file is taken as minified or as data (default
   * 400); a file of normal code with one long line (a URL, an inline key) stays reviewable.
   */
  minifiedMeanLineLength?: number;
}

export interface SkipResult {
  /** The files to review, in diff order: layout-only changes already taken out of their hunks. */
  reviewable: DiffFile[];
  skipped: SkippedFile[];
  /** Reviewed files some of whose changed lines were layout only, and not sent. */
  skippedChanges: SkippedChanges[];
}

/** Splits the diff's files into what a reviewer reads and what it skips (with the reason). */
export function applySkipRules(files: readonly DiffFile[], options: SkipOptions = {}): SkipResult {
  return runToEnd(skipRuleSteps(files, options));
}

/** `applySkipRules`, pausing after each file (see `runInSlices`). */
export function* skipRuleSteps(files: readonly DiffFile[], options: SkipOptions = {}): Steps<SkipResult> {
  const reviewable: DiffFile[] = [];
  const skipped: SkippedFile[] = [];
  const skippedChanges: SkippedChanges[] = [];
  for (const file of files) {
    yield;
    const verdict = judge(file, options);
    if ('reason' in verdict) {
      skipped.push({ path: file.path, reason: verdict.reason });
      continue;
    }
    reviewable.push(verdict.file);
    if (verdict.lineEndings > 0) skippedChanges.push({ path: file.path, reason: 'line endings only', lines: verdict.lineEndings });
    if (verdict.whitespace > 0) skippedChanges.push({ path: file.path, reason: 'whitespace only', lines: verdict.whitespace });
  }
  return { reviewable, skipped, skippedChanges };
}

/** The reason a file is skipped, or null when it is reviewed (perhaps without its layout-only changes). */
export function skipReason(file: DiffFile, options: SkipOptions = {}): SkipReason | null {
  const verdict = judge(file, options);
  return 'reason' in verdict ? verdict.reason : null;
}

type Verdict = { reason: SkipReason } | { file: DiffFile; lineEndings: number; whitespace: number };

/**
 * The first rule that applies, cheapest first: what the diff header says, then the path, then the
 * lines. The size and content rules read the file as it would be sent (without layout changes),
 * and give way to the user's `include`.
 */
function judge(file: DiffFile, options: SkipOptions): Verdict {
  if (options.exclude?.(file.path) === true) return { reason: 'excluded by .ai-review.yml' };
  const reason = headerReason(file) ?? pathReason(file);
  if (reason !== null) return { reason };
  if (file.additions === 0) return { reason: 'deletions only' };
  const cleaned = withoutLayoutChanges(file);
  if (cleaned.file.additions + cleaned.file.deletions === 0) return { reason: cleaned.whitespace > 0 ? 'whitespace only' : 'line endings only' };
  if (cleaned.file.additions === 0) return { reason: 'deletions only' };
  if (options.include?.(file.path) !== true) {
    // Measured as it would be sent: a large file converted to LF with one real edit is not too large.
    const size = cleaned.file === file && file.diffBytes !== undefined ? file.diffBytes : linesBytes(cleaned.file);
    if (size > (options.maxFileDiffBytes ?? DEFAULT_MAX_FILE_DIFF_BYTES)) return { reason: 'too large' };
    const content = contentReason(cleaned.file, options.minifiedMeanLineLength ?? 400);
    if (content !== null) return { reason: content };
  }
  return cleaned;
}

function headerReason(file: DiffFile): SkipReason | null {
  if (file.binary) return 'binary file';
  if (file.status === 'deleted') return 'deleted file';
  if (file.parseError !== undefined) return 'diff could not be parsed';
  if (file.hunks.length === 0) {
    return file.status === 'renamed' ? 'renamed without changes' : file.status === 'copied' ? 'copied without changes' : 'no content changes';
  }
  return null;
}

function pathReason(file: DiffFile): SkipReason | null {
  const lower = file.path.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (VENDORED_DIRS.test(lower) || VENDORED_DIRS_EXACT_CASE.test(file.path)) return 'vendored code';
  if (LOCK_FILES.has(name) || name.endsWith('.lock') || name.endsWith('.lockb')) return 'lock file';
  if (SOURCE_MAP_NAME.test(name)) return 'source map';
  if (GENERATED_PATH.test(lower) || GENERATED_NAME.test(name)) return 'generated';
  if (MINIFIED_NAME.test(name)) return 'minified';
  return null;
}

/** Lock files of npm, yarn, pnpm, bun, deno, Cargo, Bundler, Composer, Poetry, Pipenv, uv, PDM, Go, Mix, pub, CocoaPods, SwiftPM, NuGet, Gradle, Nix, Terraform… (`*.lock` is matched apart). */
const LOCK_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'bun.lockb',
  'deno.lock',
  'go.sum',
  'go.work.sum',
  'packages.lock.json',
  'package.resolved',
  'gradle.lockfile',
  'cabal.project.freeze',
  'conda-lock.yml',
  'renv.lock',
  'manifest.toml',
  '.terraform.lock.hcl',
]);

const VENDORED_DIRS = /(?:^|\/)(?:vendor|vendors|node_modules|bower_components|jspm_packages|third[_-]?party|\.yarn)\//;
/** CocoaPods and Carthage checkouts; case-sensitive, since a `pods/` folder of a Kubernetes tool is source. */
const VENDORED_DIRS_EXACT_CASE = /(?:^|\/)(?:Pods|Carthage\/Checkouts)\//;

/** Build output, generated-code folders and snapshot files. */
const GENERATED_PATH = /(?:^|\/)(?:dist|build|\.next|\.nuxt|\.svelte-kit|__generated__|generated)\/|(?:^|\/)__snapshots__\/.+\.snap$/;

/** protobuf/gRPC (Go, Python, JS, C++, Swift), `*.generated.*`, Dart build_runner, Go `zz_generated`, C# designers. */
const GENERATED_NAME =
  /(?:\.pb\.go|\.pb\.gw\.go|\.pb\.(?:cc|h|swift)|_pb2(?:_grpc)?\.pyi?|_pb\.(?:js|d\.ts)|_grpc_pb\.(?:js|d\.ts)|\.g\.dart|\.freezed\.dart|\.mocks\.dart|\.g\.cs|\.designer\.cs)$|\.generated\.|^zz_generated\.|^\.pnp\.(?:c?js|loader\.mjs)$/;

const SOURCE_MAP_NAME = /\.(?:js|css|mjs|cjs|ts)\.map$/;

const MINIFIED_NAME = /[.-]min\.(?:js|mjs|cjs|css)$/;

/** A file's size in diff form from its lines (a marker and a newline each, UTF-16 units for bytes). */
function linesBytes(file: DiffFile): number {
  let bytes = 0;
  for (const hunk of file.hunks) for (const line of hunk.lines) bytes += line.text.length + 2;
  return bytes;
}
