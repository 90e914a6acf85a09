import type { ReviewMode } from '../db/schema/reviews.js';
import type { RepositoryConfig } from './repository-config-schema.js';

/**
 * Why `.ai-review.yml` switches a run off, if it does: `auto: false` ends every run a pull-request
 * event started, `drafts: false` (the default) those of a draft. Runs a person asked for
 * (`POST /review`, a command) always go on.
 */
export function switchedOff(run: { triggedBy: 'webhook' | 'manual'; draft: boolean }, config: RepositoryConfig): 'auto' | 'draft' | null {
  if (run.triggedBy !== 'webhook') return null;
  if (!config.auto) return 'auto';
  return run.draft && !config.drafts ? 'draft' : null;
}

/** decisions.md §10: the mode a command or `POST /review` named, else the file's, else `focused`. */
export function reviewMode(requested: ReviewMode | null, config: RepositoryConfig): ReviewMode {
  return requested ?? config.mode ?? 'focused';
}
