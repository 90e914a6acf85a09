import type { Identifiable } from './fingerprint.js';
import { sameProblem } from './similarity.js';
import type { RejectedFinding } from '../../domain/findings.js';

/**
 * decisions.md §10: a finding that matches one the team rejected in this repository (the same id,
 * or the same file and the same problem in other words) is not reported again.
 */
export function suppressRejected<T extends Identifiable & { id: string }>(findings: readonly T[], rejected: readonly RejectedFinding[]): { kept: T[]; suppressed: number } {
  if (rejected.length === 0) return { kept: [...findings], suppressed: 0 };
  const kept = findings.filter((finding) => !rejected.some((old) => old.findingId === finding.id || (old.file === finding.file && sameProblem(old, finding))));
  return { kept, suppressed: findings.length - kept.length };
}
