import { describe, expect, it } from 'vitest';
import { parseRepositoryConfig, MAX_CONFIG_BYTES } from '../../src/repository-config/parse-repository-config.js';
import { globMatcher, instructionMatcher } from '../../src/repository-config/path-globs.js';
import { DEFAULT_REPOSITORY_CONFIG } from '../../src/repository-config/repository-config-schema.js';
import { reviewMode, switchedOff } from '../../src/repository-config/run-policy.js';
import { suppressRejected } from '../../src/review/findings/suppress-findings.js';
import { buildReviewPrompt } from '../../src/review/ask/prompts.js';
import { prepareReview } from '../../src/review/prepare/prepare-review.js';

describe('parseRepositoryConfig', () => {
  it('reads every key of decisions.md §10 and §11 and the include extension', () => {
    const config = parseRepositoryConfig(`# team settings
reviews:
  auto: false
  drafts: true
  mode: deep
  exclude: ["docs/**", "*.md"]
  include:
    - "dist/keep.js"
  instructions:
    - path: "src/db/**"
      text: "Every query must be parameterized."
  inline_min_severity: MINOR
  context: scope
`);
    expect(config).toEqual({
      present: true,
      auto: false,
      drafts: true,
      mode: 'deep',
      exclude: ['docs/**', '*.md'],
      include: ['dist/keep.js'],
      instructions: [{ path: 'src/db/**', text: 'Every query must be parameterized.' }],
      inlineMinSeverity: 'MINOR',
      context: 'scope',
      problems: [],
    });
  });

  it('an empty file or an empty reviews key means the defaults, without problems', () => {
    expect(parseRepositoryConfig('')).toEqual({ ...DEFAULT_REPOSITORY_CONFIG, present: true });
    expect(parseRepositoryConfig('reviews:\n')).toEqual({ ...DEFAULT_REPOSITORY_CONFIG, present: true });
  });

  it('names each bad value and unknown key with its line; the valid keys apply', () => {
    const config = parseRepositoryConfig(['reviews:', '  auto: "yes"', '  exclude:', '    - "ok/**"', '    - 7', '  instructions:', '    - path: "a/**"', '      txt: "typo"', '  mode: focused', 'other: true'].join('\n'));
    expect(config.mode).toBe('focused');
    expect(config.auto).toBe(true);
    expect(config.exclude).toEqual([]);
    expect(config.problems.map((problem) => problem.line)).toEqual([2, 5, 7, 7, 10]);
    expect(config.problems[1]!.message).toBe("reviews.exclude.1: Invalid input: expected string, received number; reviews.exclude keeps its default");
  });

  it('broken YAML, a duplicate key, a list at the top and an oversized file are problems, never errors', () => {
    expect(parseRepositoryConfig('reviews:\n  mode: [quick\n').problems).toEqual([{ line: expect.any(Number), message: expect.stringMatching(/^Invalid YAML/) }]);
    expect(parseRepositoryConfig('reviews:\n  mode: quick\n  mode: deep\n').problems[0]).toMatchObject({ line: 3, message: expect.stringMatching(/^Invalid YAML/) });
    expect(parseRepositoryConfig('- reviews\n').problems).toEqual([{ line: 1, message: 'The file must be a mapping with a `reviews` key' }]);
    const huge = parseRepositoryConfig(`reviews:\n  exclude:\n${'    - "a"\n'.repeat(MAX_CONFIG_BYTES / 8)}`);
    expect(huge.problems[0]!.message).toMatch(/larger than/);
    expect(huge.exclude).toEqual([]);
  });
});

describe('globs', () => {
  it('a glob with a slash matches from the root; one without matches the name anywhere; dotfiles too', () => {
    const matches = globMatcher(['docs/**', '*.md', '.github/**'])!;
    expect(['docs/a/b.ts', 'README.md', 'src/deep/notes.md', '.github/workflows/ci.yml'].every(matches)).toBe(true);
    expect(['src/docs/a.ts', 'src/main.ts'].some(matches)).toBe(false);
    expect(globMatcher([])).toBeUndefined();
  });

  it('instructions apply to the chunks holding a matching file', () => {
    const pick = instructionMatcher([
      { path: 'src/db/**', text: 'DB' },
      { path: '*.sql', text: 'SQL' },
    ]);
    expect(pick(['src/db/users.ts'])).toEqual(['DB']);
    expect(pick(['migrations/1.sql', 'src/db/x.ts'])).toEqual(['DB', 'SQL']);
    expect(pick(['src/app.ts'])).toEqual([]);
  });
});

describe('run policy', () => {
  const config = (changes: Partial<typeof DEFAULT_REPOSITORY_CONFIG>) => ({ ...DEFAULT_REPOSITORY_CONFIG, ...changes });
  it('auto and drafts switch off runs of pull-request events only', () => {
    expect(switchedOff({ triggedBy: 'webhook', draft: false }, DEFAULT_REPOSITORY_CONFIG)).toBeNull();
    expect(switchedOff({ triggedBy: 'webhook', draft: true }, DEFAULT_REPOSITORY_CONFIG)).toBe('draft');
    expect(switchedOff({ triggedBy: 'webhook', draft: true }, config({ drafts: true }))).toBeNull();
    expect(switchedOff({ triggedBy: 'webhook', draft: false }, config({ auto: false }))).toBe('auto');
    expect(switchedOff({ triggedBy: 'manual', draft: true }, config({ auto: false }))).toBeNull();
  });

  it('mode: explicit, else the file, else focused', () => {
    expect(reviewMode('deep', config({ mode: 'quick' }))).toBe('deep');
    expect(reviewMode(null, config({ mode: 'quick' }))).toBe('quick');
    expect(reviewMode(null, DEFAULT_REPOSITORY_CONFIG)).toBe('focused');
  });
});

describe('suppressRejected', () => {
  const finding = (id: string, file: string, title: string, comment = 'c') => ({ id, file, title, comment });
  it('drops findings with a rejected id, or on the same file saying the same thing; keeps the rest', () => {
    const rejected = [{ findingId: 'x1', file: 'a.ts', title: 'Missing null check on user', comment: 'user may be null here' }];
    const { kept, suppressed } = suppressRejected(
      [finding('x1', 'b.ts', 'anything'), finding('y', 'a.ts', 'Missing null check for user'), finding('z', 'c.ts', 'Missing null check on user'), finding('w', 'a.ts', 'SQL injection in query')],
      rejected,
    );
    expect(kept.map((item) => item.id)).toEqual(['z', 'w']);
    expect(suppressed).toBe(2);
  });
});

describe('prompt and preparation', () => {
  const diff = `diff --git a/docs/a.md b/docs/a.md
index 1..2 100644
--- a/docs/a.md
+++ b/docs/a.md
@@ -1 +1 @@
-old
+new
diff --git a/src/a.ts b/src/a.ts
index 1..2 100644
--- a/src/a.ts
+++ b/src/a.ts
@@ -1 +1 @@
-const a = 1;
+const a = 2;
`;
  it('excluded files are skipped first, with their reason, and not reviewable', () => {
    const prepared = prepareReview(diff, { tokenBudget: 10_000, exclude: globMatcher(['docs/**']) });
    expect(prepared.skipped).toEqual([{ path: 'docs/a.md', reason: 'excluded by .ai-review.yml' }]);
    expect(prepared.reviewable.map((file) => file.path)).toEqual(['src/a.ts']);
    expect(prepared.coverage).toMatchObject({ files: 2, reviewableFiles: 1 });
  });

  it('instructions and learnings go with the reviewer’s instructions, not with the author’s data', () => {
    const [chunk] = prepareReview(diff, { tokenBudget: 10_000 }).chunks;
    const { system, prompt } = buildReviewPrompt({ mode: 'focused', chunk: chunk!, chunkCount: 1, instructions: ['INSTR'], learnings: ['NOTE'] });
    expect(system).toContain('- INSTR');
    expect(system).toContain('- NOTE');
    expect(prompt).not.toContain('INSTR');
    expect(buildReviewPrompt({ mode: 'focused', chunk: chunk!, chunkCount: 1 }).system).not.toContain("This repository's instructions");
  });
});
