import type { DiffFile } from './diff/diff-types.js';
import type { SkippedFile } from './skip-rules.js';

export const EXCLUDED_BY_REPOSITORY = 'excluded by .ai-review.yml';

/**
 * `.ai-review.yml`'s `exclude` (decisions.md §10): matching files are left out before any other
 * rule, and listed as skipped with that reason.
 */
export function applyRepositoryExclusions(files: readonly DiffFile[], exclude: ((path: string) => boolean) | undefined): { kept: DiffFile[]; excluded: SkippedFile[] } {
  if (exclude === undefined) return { kept: [...files], excluded: [] };
  const kept: DiffFile[] = [];
  const excluded: SkippedFile[] = [];
  for (const file of files) {
    if (exclude(file.path)) excluded.push({ path: file.path, reason: EXCLUDED_BY_REPOSITORY });
    else kept.push(file);
  }
  return { kept, excluded };
}
