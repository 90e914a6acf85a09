import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FakeGitHub } from '../../test/fakes/fake-github.js';
import { report } from '../lib/report.js';

const FILES = 2_000;
const FILE_BYTES = 50 * 1024;

/** A source file of about `bytes`, different in every file (so the archive compresses as code does). */
function sourceFile(index: number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const text = `export function handler${index}_${line}(input: Input${line % 17}): Output { return transform${(index * 31 + line) % 997}(input, ${(index * line) % 10007}); }`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n') + '\n';
}

/**
 * decisions.md §11's snapshot of a 100 MB repository from a local fake code host: a git repository
 * of 2,000 files of 50 KB, served by the fake GitHub (`git archive` behind the tarball endpoint),
 * snapshotted by a worker process of its own, whose wall time and peak RSS are reported (targets:
 * under 10 s and 300 MB).
 */
export async function codeSnapshotBench() {
  const workspace = mkdtempSync(join(tmpdir(), 'bench-snapshot-'));
  const github = await new FakeGitHub().start();
  try {
    const repository = join(workspace, 'repo');
    mkdirSync(repository);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repository, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
    git('init', '--quiet');
    for (let index = 0; index < FILES; index++) {
      mkdirSync(join(repository, `src/module${index % 40}`), { recursive: true });
      writeFileSync(join(repository, `src/module${index % 40}/file${index}.ts`), sourceFile(index, FILE_BYTES));
    }
    git('add', '.');
    git('commit', '--quiet', '-m', 'bench');
    const commit = git('rev-parse', 'HEAD').trim();
    github.code.serveRepository('bench/large', repository);

    const main = fileURLToPath(new URL('../lib/snapshot-main.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', main, github.url, 'bench/large', commit, join(workspace, 'cache')], { maxBuffer: 1 << 20 });
    const figures = JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; mode: string; files: number; megabytes: number; peakRssMiB: number };
    report('code snapshot of a 100 MB repository', { ...figures, targetMs: 10_000, targetRssMiB: 300 });
  } finally {
    await github.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}
