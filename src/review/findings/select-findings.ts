import type { DiffFile } from '../prepare/diff/diff-types.js';
import { newSpans, type LineSpan } from '../prepare/diff/line-map.js';
import { anchorRange } from './anchor.js';
import { RepeatDetector, type IncrementalContext } from './incremental.js';
import { fileMatcher } from './match-file.js';
import { sameProblem } from './similarity.js';
import type { FindingLike, Severity } from '../../domain/findings.js';

export type { IncrementalContext, PreviousFinding } from './incremental.js';
export type { FindingLike };


export interface SelectOptions {
  /** Findings below this confidence (0–100) are dropped. Default 50. */
  minConfidence?: number;
  /** How far (in lines) outside a hunk a cited line may be and still be moved onto it. Default 3. */
  maxReanchorDistance?: number;
  /** Keep at most this many, the most severe and confident first (quick mode). Default: no limit. */
  maxFindings?: number;
  /** For a `synchronize` review: drop what was already reported for code the push did not touch. */
  incremental?: IncrementalContext;
}

export interface FindingCounts {
  /** Dropped: the file is not among the reviewed files, or the lines are not in any hunk. */
  outsideDiff: number;
  /** Not a drop: findings that passed the location and confidence checks after being moved or clipped onto shown lines. */
  reanchored: number;
  lowConfidence: number;
  duplicate: number;
  alreadyReported: number;
  /** Dropped by `maxFindings`. */
  overLimit: number;
}

export interface SelectedFindings<T> {
  /** In diff file order, then by line. Paths are the diff's own; lines are anchored. */
  findings: T[];
  counts: FindingCounts;
}

/**
 * Keeps the findings a reader can trust, from one chunk or all chunks of a review at once (pass
 * them together: duplicates across chunks are found the same way). `files` are the files the model
 * was shown (the reviewable ones): a finding on any other file is outside the diff.
 *
 * Order: the file and lines must be in the diff (re-anchored when off by a few lines), the
 * confidence high enough, the finding not already reported (incremental), not a duplicate of a
 * more severe or more confident one on overlapping lines, then the limit.
 */
export function selectFindings<T extends FindingLike>(
  findings: readonly T[],
  files: readonly DiffFile[],
  options: SelectOptions = {},
): SelectedFindings<T> {
  const minConfidence = options.minConfidence ?? 50;
  const maxDistance = options.maxReanchorDistance ?? 3;
  const counts: FindingCounts = { outsideDiff: 0, reanchored: 0, lowConfidence: 0, duplicate: 0, alreadyReported: 0, overLimit: 0 };
  const match = fileMatcher(files);
  const spans = new Map<DiffFile, LineSpan[]>();
  const repeats = options.incremental ? new RepeatDetector(options.incremental) : null;

  const candidates: T[] = [];
  for (const finding of findings) {
    const file = match(finding.file);
    if (!file) {
      counts.outsideDiff++;
      continue;
    }
    let fileSpans = spans.get(file);
    if (!fileSpans) {
      fileSpans = newSpans(file);
      spans.set(file, fileSpans);
    }
    const anchored = anchorRange(fileSpans, finding.line, Math.max(finding.line, finding.endLine), maxDistance);
    if (!anchored) {
      counts.outsideDiff++;
      continue;
    }
    if (finding.confidence < minConfidence) {
      counts.lowConfidence++;
      continue;
    }
    if (anchored.moved) counts.reanchored++;
    const placed = { ...finding, file: file.path, line: anchored.line, endLine: anchored.endLine };
    if (repeats?.isRepeat(placed)) {
      counts.alreadyReported++;
      continue;
    }
    candidates.push(placed);
  }

  candidates.sort(byPriority);
  const kept: T[] = [];
  for (const candidate of candidates) {
    const duplicate = kept.some(
      (other) => other.file === candidate.file && other.line <= candidate.endLine && candidate.line <= other.endLine && sameProblem(other, candidate),
    );
    if (duplicate) counts.duplicate++;
    else kept.push(candidate);
  }

  const limited = options.maxFindings === undefined ? kept : kept.slice(0, Math.max(0, options.maxFindings));
  counts.overLimit = kept.length - limited.length;
  const order = new Map(files.map((file, index) => [file.path, index]));
  limited.sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.line - b.line || a.endLine - b.endLine);
  return { findings: limited, counts };
}

const SEVERITY_RANK: Record<Severity, number> = { CRITICAL: 0, MAJOR: 1, MINOR: 2, INFO: 3 };

/** Most severe first, then most confident: the one kept among duplicates, and under a limit. */
function byPriority(a: FindingLike, b: FindingLike): number {
  return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.confidence - a.confidence;
}
