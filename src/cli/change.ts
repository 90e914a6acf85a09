import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPOSITORY_CONFIG_PATH } from '../repository-config/repository-config-schema.js';
import { CliError } from './cli-error.js';
import type { Git } from './git.js';

/** Imported files sent beside the changed ones at most, in bytes (decisions.md §17). */
export const MAX_IMPORTED_BYTES = 2 * 1024 * 1024;
/** A file larger than this is not sent: the service does not read such files for context either. */
const MAX_FILE_BYTES = 1024 * 1024;

/** What `ai-review review` was asked to review (decisions.md §17). */
export type Selection = { kind: 'default' } | { kind: 'staged' } | { kind: 'base'; ref: string } | { kind: 'range'; range: string };

/** Where the head versions of files are read: the work tree, the index, or a commit. */
type Head = { kind: 'worktree' } | { kind: 'index' } | { kind: 'commit'; ref: string };

export interface SelectedChange {
  diff: string;
  /** What was reviewed, for people: "the staged change", "the work tree against abc1234"… */
  label: string;
  /** The commit the change starts from: `.ai-review.yml` is read there (never from the change itself). */
  base: string | undefined;
  /** Reads the head version of a file; null when it is not there. */
  headFile: (path: string) => Promise<string | null>;
  /** Every file at the head, for resolving imports. */
  headPaths: () => Promise<string[]>;
  changedPaths: string[];
  /** The head commit, when there is one (names the review). */
  headCommit: string | undefined;
}

/** The change a selection names, with its diff; a one-line error when it is empty. */
export async function selectChange(git: Git, selection: Selection): Promise<SelectedChange> {
  const headCommit = await git.commit('HEAD');
  const plan = await planOf(git, selection, headCommit);
  let diff = await git.diff(plan.args);
  let chosen = plan;
  if (diff.trim() === '' && selection.kind === 'default' && headCommit !== undefined) {
    // Nothing uncommitted: the branch's own commits, against where it left the remote's default branch.
    const upstream = await remoteDefaultBranch(git);
    const base = upstream === undefined ? undefined : await git.mergeBase('HEAD', upstream);
    if (base !== undefined && base !== headCommit) {
      chosen = { args: [base, 'HEAD'], head: { kind: 'commit', ref: 'HEAD' }, base, label: `the branch against ${upstream} (merge base ${base.slice(0, 12)})` };
      diff = await git.diff(chosen.args);
    }
  }
  if (diff.trim() === '') throw new CliError(`Nothing to review: ${plan.label} is empty; change something, stage it (--staged) or name a base (--base main)`);
  return {
    diff,
    label: chosen.label,
    base: chosen.base,
    headFile: (path) => headFile(git, chosen.head, path),
    headPaths: () => headPaths(git, chosen.head),
    changedPaths: await git.changedPaths(chosen.args),
    headCommit: chosen.head.kind === 'commit' ? await git.commit(chosen.head.ref) : headCommit,
  };
}

interface Plan {
  args: string[];
  head: Head;
  base: string | undefined;
  label: string;
}

async function planOf(git: Git, selection: Selection, headCommit: string | undefined): Promise<Plan> {
  switch (selection.kind) {
    case 'staged':
      // Without a first commit, git compares the index with the empty tree.
      return { args: ['--cached'], head: { kind: 'index' }, base: headCommit, label: 'the staged change' };
    case 'base': {
      const ref = await git.commit(selection.ref);
      if (ref === undefined) throw new CliError(`Unknown ref ${selection.ref}: fetch it (git fetch) or name an existing branch, tag or commit`);
      const base = await git.mergeBase('HEAD', ref);
      if (base === undefined) throw new CliError(`HEAD and ${selection.ref} have no common history: name a base the branch started from`);
      return { args: [base], head: { kind: 'worktree' }, base, label: `the work tree against ${selection.ref} (merge base ${base.slice(0, 12)})` };
    }
    case 'range': {
      // git's own range forms: A..B compares A with B, A...B the merge base of A and B with B.
      const symmetric = selection.range.includes('...');
      const [from = '', to = ''] = selection.range.split(symmetric ? '...' : '..');
      if (!selection.range.includes('..')) throw new CliError(`${selection.range} is not a range: write it as git does, A..B or A...B`);
      const head = to || 'HEAD';
      const start = from || 'HEAD';
      if ((await git.commit(head)) === undefined || (await git.commit(start)) === undefined) throw new CliError(`Unknown ref in ${selection.range}: fetch it (git fetch) or check the names`);
      const base = symmetric ? await git.mergeBase(start, head) : await git.commit(start);
      return { args: [selection.range], head: { kind: 'commit', ref: head }, base, label: `the range ${selection.range}` };
    }
    case 'default':
      if (headCommit === undefined) throw new CliError('Nothing to review: the repository has no commit yet; stage your files and run `ai-review review --staged`');
      return { args: ['HEAD'], head: { kind: 'worktree' }, base: headCommit, label: 'the work tree against HEAD' };
  }
}

/** The remote's default branch (`origin/main`), as `git remote set-head` recorded it, else a usual name. */
async function remoteDefaultBranch(git: Git): Promise<string | undefined> {
  const remotes = ((await git.maybe(['remote'])) ?? '').split('\n').filter(Boolean);
  const remote = remotes.includes('origin') ? 'origin' : remotes[0];
  if (remote === undefined) return undefined;
  const recorded = (await git.maybe(['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`]))?.trim();
  if (recorded) return recorded;
  for (const name of ['main', 'master']) if ((await git.commit(`${remote}/${name}`)) !== undefined) return `${remote}/${name}`;
  return undefined;
}

async function headFile(git: Git, head: Head, path: string): Promise<string | null> {
  let text: string | undefined;
  if (head.kind === 'worktree') text = await readFile(join(git.cwd, path), 'utf8').catch(() => undefined);
  else text = await git.maybe(['show', head.kind === 'index' ? `:${path}` : `${head.ref}:${path}`]);
  if (text === undefined || text.length > MAX_FILE_BYTES || text.slice(0, 8192).includes('\0')) return null;
  return text;
}

async function headPaths(git: Git, head: Head): Promise<string[]> {
  const out = head.kind === 'commit' ? await git.run(['ls-tree', '-r', '--name-only', '-z', head.ref]) : await git.run(['ls-files', '-z', ...(head.kind === 'index' ? ['--cached'] : [])]);
  return out.split('\0').filter(Boolean);
}

/** The `.ai-review.yml` at the change's base (decisions.md §10: a change cannot switch off its own review). */
export async function configAtBase(git: Git, change: SelectedChange): Promise<string | undefined> {
  if (change.base === undefined) return undefined;
  return git.maybe(['show', `${change.base}:${REPOSITORY_CONFIG_PATH}`]);
}

/** The changed files' head versions and, within `MAX_IMPORTED_BYTES`, the repository files they import (decisions.md §11's definitions). */
export async function changeFiles(change: SelectedChange): Promise<Array<{ path: string; content: string }>> {
  // tree-sitter is loaded only here: `--local` reads imports from the work tree itself.
  const [{ outlineFile }, { PathIndex, resolveImport }] = await Promise.all([import('../code-context/outline-file.js'), import('../code-context/resolve-imports.js')]);
  const files = new Map<string, string>();
  for (const path of change.changedPaths) {
    const text = await change.headFile(path);
    if (text !== null) files.set(path, text);
  }
  const index = new PathIndex(await change.headPaths());
  let budget = MAX_IMPORTED_BYTES;
  for (const [path, text] of [...files]) {
    const outline = await outlineFile(path, text);
    if (!outline.ok) continue;
    for (const imported of outline.outline.imports) {
      for (const target of resolveImport(path, imported, outline.outline.language, index)) {
        if (files.has(target)) continue;
        const content = await change.headFile(target);
        if (content === null || Buffer.byteLength(content) > budget) continue;
        budget -= Buffer.byteLength(content);
        files.set(target, content);
      }
    }
  }
  return [...files].map(([path, content]) => ({ path, content }));
}

/** `owner/name` from the `origin` remote's URL (`git@host:owner/name.git`, `https://host/owner/name`), when it has that shape. */
export async function repositoryFromRemote(git: Git): Promise<string | undefined> {
  const remote = (await git.maybe(['remote', 'get-url', 'origin']))?.trim();
  if (!remote) return undefined;
  const path = remote.replace(/^[a-z+]+:\/\/[^/]+\//i, '').replace(/^[^@/]+@[^:]+:/, '');
  const segments = path.replace(/\.git$/, '').split('/').filter(Boolean);
  if (segments.length < 2) return undefined;
  return `${segments.at(-2)}/${segments.at(-1)}`;
}
