import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const git = async (...args: string[]) => (await run('git', args, { cwd: ROOT, maxBuffer: 256 * 2 ** 20 })).stdout;

/** Runs a command in `cwd` with its output on ours (npm ci can take minutes: show it working). */
function visible(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/**
 * The source of `revision` in a directory of its own (`$TMPDIR/bench-compare/<sha>`), ready to run:
 * the files of that commit (`git archive`: no work tree is registered in this repository) and its
 * dependencies, this tree's `node_modules` when the lockfiles are equal, else its own `npm ci`.
 * A tree already prepared for that commit is reused. Returns the directory and the full sha.
 */
export async function revisionTree(revision: string): Promise<{ root: string; sha: string; sharedModules: boolean }> {
  const sha = (await git('rev-parse', '--verify', `${revision}^{commit}`)).trim();
  const root = join(tmpdir(), 'bench-compare', sha);
  const ready = join(root, '.bench-compare-ready');
  const sharedModules = (await git('show', `${sha}:package-lock.json`)) === (await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
  if (existsSync(ready)) return { root, sha, sharedModules };

  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  console.log(`bench:compare: extracting ${sha.slice(0, 12)} into ${root}`);
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', sha], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const extract = spawn('tar', ['-x', '-C', root], { stdio: ['pipe', 'inherit', 'inherit'] });
    archive.stdout.pipe(extract.stdin);
    archive.once('error', reject);
    extract.once('error', reject);
    extract.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`))));
  });
  if (sharedModules) {
    await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  } else {
    console.log(`bench:compare: the lockfiles differ: npm ci in ${root}`);
    await visible('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], root);
  }
  await writeFile(ready, `${new Date().toISOString()}\n`);
  return { root, sha, sharedModules };
}
