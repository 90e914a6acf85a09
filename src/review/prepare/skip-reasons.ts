import type { LayoutReason } from './layout-changes.js';

/** Why a file is left out of the review, worded for the review's reader ("Skipped: lock file"). */
export type SkipReason =
  | 'binary file'
  | 'deleted file'
  | 'renamed without changes'
  | 'copied without changes'
  | 'no content changes'
  | 'diff could not be parsed'
  | 'excluded by .ai-review.yml'
  | 'vendored code'
  | 'lock file'
  | 'generated'
  | 'minified'
  | 'source map'
  | 'bundled code'
  | 'certificate bundle'
  | 'binary content'
  | 'very long lines'
  | 'too large'
  | 'deletions only'
  | LayoutReason;
