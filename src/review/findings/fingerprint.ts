import { createHash } from 'node:crypto';
import { sameProblem, words } from './similarity.js';

export interface Identifiable {
  file: string;
  title: string;
  comment: string;
  id?: string;
}

/**
 * A finding's stable id: its file and the meaningful words of its title, hashed. Line numbers are
 * left out on purpose: the same problem moves when code above it changes, and must keep its id
 * (GitHub's hidden markers and the team's verdicts hang on it).
 */
export function fingerprint(finding: Pick<Identifiable, 'file' | 'title'>): string {
  const title = [...words(finding.title)].sort().join(' ');
  return createHash('sha256').update(`${finding.file}\n${title}`).digest('hex').slice(0, 16);
}

/**
 * Gives every finding of a review its id. A finding that already has one (carried from the last
 * review) keeps it; a new finding that says the same as one of the last review's on the same file
 * takes that one's id, so a re-run's rewording does not make it a new finding; the rest get their
 * fingerprint. Ids are unique within the review: a second finding with the same fingerprint gets a
 * suffix by its order.
 */
export function assignFindingIds<T extends Identifiable>(findings: readonly T[], previous: readonly Identifiable[] = []): Array<T & { id: string }> {
  const used = new Set(findings.flatMap((finding) => (finding.id === undefined ? [] : [finding.id])));
  return findings.map((finding) => {
    if (finding.id !== undefined) return { ...finding, id: finding.id };
    const earlier = previous.find((old) => old.id !== undefined && !used.has(old.id) && old.file === finding.file && sameProblem(old, finding));
    let id = earlier?.id ?? fingerprint(finding);
    for (let n = 2; used.has(id); n++) id = `${fingerprint(finding)}-${n}`;
    used.add(id);
    return { ...finding, id };
  });
}
