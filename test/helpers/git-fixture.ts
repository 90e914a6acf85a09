import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/**
 * A git repository in a temporary folder with one commit per entry of `commits` (files written
 * over the previous commit's, `null` deleting one); returns the folder and the commits' SHAs.
 */
export function createGitFixture(commits: Array<Record<string, string | Buffer | null>>): { dir: string; shas: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'git-fixture-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '--quiet', '--initial-branch=main');
  const shas: string[] = [];
  commits.forEach((files, index) => {
    // Written, then staged at once: one git process per file made a 2,000-file commit take seconds.
    for (const [path, content] of Object.entries(files)) {
      if (content === null) {
        rmSync(join(dir, path));
        continue;
      }
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    git('add', '--all');
    git('commit', '--quiet', '--allow-empty', '-m', `commit ${index + 1}`);
    shas.push(git('rev-parse', 'HEAD').trim());
  });
  return { dir, shas };
}
