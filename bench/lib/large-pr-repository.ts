import { rmSync } from 'node:fs';
import { createGitFixture } from '../../test/helpers/git-fixture.js';
import { syntheticHeadFiles } from '../../test/helpers/synthetic-repository.js';

/**
 * The repository a synthetic large pull request applies to, served by the bench's fake GitHub so
 * that its review builds the head's snapshot, outlines, scopes and definitions for real. Two base
 * commits: `baseOff` holds `.ai-review.yml` with `reviews.context: none` (the diff alone, as before
 * code context), `baseOn` none (the default, `full`). The config is read at the base, so one diff
 * is reviewed either way. Each round gets a head of its own (the same files, a README apart), so
 * no round reads a snapshot or outlines an earlier round cached.
 */
export function largePrRepository(diff: string, rounds: number) {
  const head = Object.fromEntries(syntheticHeadFiles(diff));
  const { dir, shas } = createGitFixture([
    { 'README.md': '# bench\n' },
    { '.ai-review.yml': 'reviews:\n  context: none\n' },
    { ...head, '.ai-review.yml': null },
    ...Array.from({ length: rounds * 2 - 1 }, (_, round) => ({ 'README.md': `# bench, round ${round + 2}\n` })),
  ]);
  return {
    dir,
    baseOn: shas[0]!,
    baseOff: shas[1]!,
    /** A head commit no earlier round reviewed, for round `index` (0-based) of each variant. */
    heads: shas.slice(2),
    files: Object.keys(head).length,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
