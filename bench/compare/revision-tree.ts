import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
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
 * Run in the tree with `node --import tsx` (which fails at once if tsx does not resolve there): every
 * dependency of its package.json must resolve from its root, as the service's start imports them.
 * A package with no entry point (data only, like tree-sitter-wasms) counts when its package.json is there.
 */
const RESOLVE_DEPENDENCIES = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const missing = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies ?? {}).filter((name) => {
  try { import.meta.resolve(name); return false; } catch {}
  try { require.resolve(name + '/package.json'); return false; } catch { return true; }
});
if (missing.length > 0) { console.error('unresolved: ' + missing.join(', ')); process.exit(1); }
`;

/**
 * Why the tree at `root` cannot run the service, or undefined when it can: its entry point, tsx and
 * its dependencies must resolve there. A symlinked node_modules is refused too: its target (another
 * work tree's) may be deleted after the check, as happened once.
 */
export async function unrunnable(root: string): Promise<string | undefined> {
  if (!existsSync(join(root, 'src', 'server.ts'))) return 'no src/server.ts';
  const modules = await lstat(join(root, 'node_modules')).catch(() => undefined);
  if (modules === undefined) return 'no node_modules';
  if (modules.isSymbolicLink()) return 'node_modules is a symbolic link';
  try {
    await run(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', RESOLVE_DEPENDENCIES], { cwd: root });
    return undefined;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    const lines = (stderr ?? String(error)).split('\n');
    return (lines.find((line) => /^unresolved|^Error/.test(line)) ?? 'node --import tsx failed').trim();
  }
}

/** This tree's node_modules into `root`: hard links (no copy of the 500 MB, nothing shared to delete), else a copy across file systems. */
async function copyModules(root: string): Promise<void> {
  // Its real path: a checkout whose node_modules is itself a link gives the directory, not the link.
  const from = await realpath(join(ROOT, 'node_modules'));
  const to = join(root, 'node_modules');
  try {
    await run('cp', ['-al', from, to]);
  } catch {
    await rm(to, { recursive: true, force: true });
    await run('cp', ['-a', from, to]);
  }
}

/**
 * The source of `revision` in a directory of its own (`$TMPDIR/bench-compare/<sha>`), ready to run:
 * the files of that commit (`git archive`: no work tree is registered in this repository) and its
 * dependencies, a hard-linked copy of this tree's `node_modules` when the lockfiles are equal, else
 * its own `npm ci`. A tree already prepared for that commit is reused if it still runs (see
 * `unrunnable`), else built again. Returns the directory and the full sha.
 */
export async function revisionTree(revision: string): Promise<{ root: string; sha: string; sharedModules: boolean }> {
  const sha = (await git('rev-parse', '--verify', `${revision}^{commit}`)).trim();
  const root = join(tmpdir(), 'bench-compare', sha);
  const ready = join(root, '.bench-compare-ready');
  const sharedModules = (await git('show', `${sha}:package-lock.json`)) === (await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
  if (existsSync(ready)) {
    const problem = await unrunnable(root);
    if (problem === undefined) return { root, sha, sharedModules };
    console.log(`bench:compare: the cached ${root} cannot run (${problem}): building it again`);
  }

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
    await copyModules(root);
  } else {
    console.log(`bench:compare: the lockfiles differ: npm ci in ${root}`);
    await visible('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], root);
  }
  const problem = await unrunnable(root);
  if (problem !== undefined) throw new Error(`bench:compare: ${root} was built but cannot run the service: ${problem}`);
  await writeFile(ready, `${new Date().toISOString()}\n`);
  return { root, sha, sharedModules };
}
