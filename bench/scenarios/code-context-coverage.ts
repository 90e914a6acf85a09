import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CodeIndex } from '../../src/code-context/code-index.js';
import { definitionsNamed, onReceiver } from '../../src/code-context/find-symbols.js';
import { gatherChunkContext } from '../../src/code-context/gather-context.js';
import { outlineFile } from '../../src/code-context/outline-file.js';
import type { IndexedSymbol } from '../../src/code-context/code-index.js';
import type { FileOutline } from '../../src/code-context/outline-types.js';
import { RepositorySnapshot } from '../../src/code-context/snapshot/repository-snapshot.js';
import { fitChunkContext, promptRoom } from '../../src/review/ask/chunk-context.js';
import { buildReviewPrompt, DEFAULT_OUTPUT_RESERVE, reviewPromptTokens } from '../../src/review/ask/prompts.js';
import { prepareSizedAsReviewed } from '../../test/helpers/review-sizing.js';
import { splitForScopes } from '../../src/review/ask/split-for-scopes.js';
import { MAX_CHUNKS_SPLIT_FOR_SCOPES } from '../../src/review/prepare/chunk-budget.js';
import { changedLinesOf } from '../../src/review/prepare/chunk-lines.js';
import type { ReviewChunk } from '../../src/review/prepare/chunking.js';
import { countTokens } from '../../src/review/prepare/tokens.js';
import { percentile } from '../lib/stats.js';
import { report } from '../lib/report.js';

const CONTEXT_LENGTH = 32_000;
const COMMITS = Number(process.env.CODE_CONTEXT_COMMITS ?? 30);
const MAX_CHANGED_LINES = 400;
const MAX_FUNCTION_LINES = 120;
type Mode = 'focused' | 'deep';

interface Tally {
  scoped: number;
  scopedHit: number;
  existing: number;
  existingHit: number;
  called: number;
  calledHit: number;
  /** The calls found by name alone (a name defined once in the repository), as before calls kept their object. */
  calledByName: number;
  calledByNameHit: number;
  baseScopedHit: number;
  baseCalledHit: number;
  tokensPerLine: number[];
  baseTokensPerLine: number[];
}

const emptyTally = (): Tally => ({ scoped: 0, scopedHit: 0, existing: 0, existingHit: 0, called: 0, calledHit: 0, calledByName: 0, calledByNameHit: 0, baseScopedHit: 0, baseCalledHit: 0, tokensPerLine: [], baseTokensPerLine: [] });

/** Lines shown per path: the diff's new-file lines and the numbered lines of the context blocks. */
function shownLines(chunk: ReviewChunk, section: string | null): Map<string, Set<number>> {
  const shown = new Map<string, Set<number>>();
  const add = (path: string, line: number) => (shown.get(path) ?? shown.set(path, new Set()).get(path)!).add(line);
  for (const segment of chunk.segments) {
    for (const slice of segment.slices) {
      const lines = segment.file.hunks[slice.hunk]!.lines.slice(slice.from, slice.to);
      for (const line of lines) if (line.newLine !== undefined) add(segment.file.path, line.newLine);
    }
  }
  let path: string | undefined;
  for (const line of (section ?? '').split('\n')) {
    const open = /^<context kind="\w+" path=("(?:[^"\\]|\\.)*")/.exec(line);
    if (open) path = JSON.parse(open[1]!) as string;
    else if (line === '</context>') path = undefined;
    else if (path) {
      const numbered = /^(\d+) /.exec(line);
      if (numbered) add(path, Number(numbered[1]));
    }
  }
  return shown;
}

const covers = (shown: Map<string, Set<number>> | undefined, path: string, from: number, to: number) => {
  const lines = shown?.get(path);
  if (!lines) return false;
  for (let line = from; line <= to; line++) if (!lines.has(line)) return false;
  return true;
};

function listFiles(root: string, folder = root): Array<{ path: string; size: number }> {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = join(folder, entry.name);
    if (entry.isDirectory()) return listFiles(root, full);
    return entry.isFile() ? [{ path: relative(root, full), size: statSync(full).size }] : [];
  });
}

/**
 * The one definition elsewhere in the repository a call on a changed line names, if unambiguous: for
 * a call on an object (`req.get()`), the one definition on that object (`req.get = function`);
 * otherwise a name the changed file does not define and the repository defines once.
 */
function calledDefinition(outline: FileOutline, path: string, named: readonly IndexedSymbol[], name: string, receiver: string | undefined): (IndexedSymbol & { onObject: boolean }) | undefined {
  const local = definitionsNamed(outline, name);
  const elsewhere = named.filter((entry) => entry.path !== path);
  if (receiver !== undefined) {
    if (local.some((symbol) => onReceiver(symbol, receiver))) return undefined;
    const onObject = elsewhere.filter((entry) => onReceiver(entry.symbol, receiver));
    if (onObject.length === 1) return { ...onObject[0]!, onObject: true };
    if (onObject.length > 1) return undefined;
  }
  return local.length === 0 && elsewhere.length === 1 ? { ...elsewhere[0]!, onObject: false } : undefined;
}

async function measureCommit(repo: string, commit: string, tallies: Record<Mode, Tally>) {
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', repo, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const diff = git('diff', `${commit}^`, commit);
  const folder = mkdtempSync(join(tmpdir(), 'coverage-'));
  try {
    execFileSync('sh', ['-c', `git --git-dir "$0" archive "$1" | tar -x -C "$2"`, repo, commit, folder]);
    const index = new CodeIndex(new RepositorySnapshot('tarball', commit, folder, listFiles(folder), undefined));
    const before = async (path: string) => {
      try {
        const result = await outlineFile(path, git('show', `${commit}^:${path}`));
        return result.ok ? result.outline : undefined;
      } catch {
        return undefined;
      }
    };
    for (const mode of ['focused', 'deep'] as const) {
      const tally = tallies[mode];
      const base = { mode, pullRequest: { title: 'commit' } };
      // The review step's chunk budget and splitting (src/review/pipeline/review-step.ts), at 32k.
      const { prepared, keepsContextRoom } = prepareSizedAsReviewed(diff, base, { contextLength: CONTEXT_LENGTH, outputReserve: DEFAULT_OUTPUT_RESERVE[mode], mode, level: 'full' });
      const reviewablePaths = prepared.reviewable.map((file) => file.path);
      const tools = mode === 'deep';
      const bareOf = (chunk: ReviewChunk, chunkCount: number) => buildReviewPrompt({ ...base, chunk, chunkCount, skipped: prepared.skipped, reviewablePaths, tools });
      const roomOf = (chunk: ReviewChunk, chunkCount: number) => promptRoom(reviewPromptTokens({ ...base, chunk, chunkCount, skipped: prepared.skipped, reviewablePaths, tools }), CONTEXT_LENGTH, DEFAULT_OUTPUT_RESERVE[mode]);
      const gather = (chunk: ReviewChunk, room?: number) => gatherChunkContext(index, changedLinesOf(chunk), { definitions: true, callers: mode === 'deep' }, room);
      const planned = keepsContextRoom
        ? await splitForScopes(prepared.chunks, { gather, room: roomOf, tools, commit, maxChunks: MAX_CHUNKS_SPLIT_FOR_SCOPES })
        : // As the review step gathers a chunk not split: for the room its prompt leaves (deep mode's verification fits the blocks again).
          await Promise.all(prepared.chunks.map(async (chunk) => ({ chunk, blocks: await gather(chunk, tools ? undefined : roomOf(chunk, prepared.chunks.length)) })));
      if (process.env.CODE_CONTEXT_DEBUG && planned.length !== prepared.chunks.length) console.log('split', mode, commit.slice(0, 8), prepared.chunks.length, '->', planned.length);
      let baseTokens = 0;
      // The diff alone: the bare prompts of the chunks as sized, before any was split for its scopes.
      for (const chunk of prepared.chunks) {
        const bare = bareOf(chunk, prepared.chunks.length);
        baseTokens += countTokens(bare.system) + countTokens(bare.prompt);
      }
      let tokens = 0;
      let changedCount = 0;
      for (const { chunk, blocks } of planned) {
        const room = roomOf(chunk, planned.length);
        const changed = changedLinesOf(chunk);
        const fitted = fitChunkContext(blocks, room, tools, commit);
        const built = buildReviewPrompt({ ...base, chunk, chunkCount: planned.length, skipped: prepared.skipped, reviewablePaths, tools, codeContext: fitted.section });
        tokens += countTokens(built.system) + countTokens(built.prompt);
        const shown = shownLines(chunk, fitted.section);
        const diffOnly = shownLines(chunk, null);
        const symbols = (await index.symbolIndex()).definitions;
        for (const file of changed) {
          const outline = await index.outline(file.path);
          if (!outline?.ok) continue;
          const old = await before(file.path);
          const added = new Set(chunk.segments.filter((segment) => segment.file.path === file.path).flatMap((segment) => segment.slices.flatMap((slice) => segment.file.hunks[slice.hunk]!.lines.slice(slice.from, slice.to).filter((line) => line.kind === 'add').map((line) => line.newLine!))));
          changedCount += added.size;
          for (const line of added) {
            const scope = outline.outline.symbols
              .filter((symbol) => (symbol.kind === 'function' || symbol.kind === 'method') && symbol.startLine <= line && symbol.endLine >= line)
              .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
            if (!scope || scope.endLine - scope.startLine + 1 > MAX_FUNCTION_LINES) continue;
            const hit = covers(shown, file.path, scope.startLine, scope.endLine);
            tally.scoped++;
            if (hit) tally.scopedHit++;
            else if (process.env.CODE_CONTEXT_DEBUG) console.log('miss', mode, commit.slice(0, 8), file.path, line, scope.name || '(anonymous)', `${scope.startLine}-${scope.endLine}`, blocks.filter((b) => b.path === file.path).map((b) => `${b.label} ${b.startLine}-${b.endLine}`).join('; '), 'room', room);
            if (covers(diffOnly, file.path, scope.startLine, scope.endLine)) tally.baseScopedHit++;
            if (old && definitionsNamed(old, scope.name).length > 0) {
              tally.existing++;
              if (hit) tally.existingHit++;
            }
          }
          const calls = outline.outline.references.filter((reference) => reference.kind === 'call' && added.has(reference.line));
          const counted = new Set<string>();
          for (const { name, receiver } of calls) {
            const target = calledDefinition(outline.outline, file.path, symbols.get(name) ?? [], name, receiver);
            if (!target || counted.has(`${name}:${target.path}:${target.symbol.startLine}`)) continue;
            counted.add(`${name}:${target.path}:${target.symbol.startLine}`);
            const { path, symbol } = target;
            const hit = covers(shown, path, symbol.startLine, symbol.startLine);
            tally.called++;
            if (hit) tally.calledHit++;
            if (covers(diffOnly, path, symbol.startLine, symbol.startLine)) tally.baseCalledHit++;
            if (!target.onObject) {
              tally.calledByName++;
              if (hit) tally.calledByNameHit++;
            }
            if (process.env.CODE_CONTEXT_DEBUG && (mode === 'focused' || !hit)) console.log(hit ? 'call' : 'call missed', mode, commit.slice(0, 8), file.path, receiver ? `${receiver}.${name}` : name, path, symbol.startLine);
          }
        }
      }
      if (changedCount > 0) {
        tally.tokensPerLine.push(tokens / changedCount);
        tally.baseTokensPerLine.push(baseTokens / changedCount);
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The coverage table on real commits: `CODE_CONTEXT_REPOS=<git dir>[:<pathspec>],…` (for
 * example `/mirrors/requests.git:src/requests,/mirrors/express.git:lib`); the last
 * `CODE_CONTEXT_COMMITS` (30) non-merge commits touching the pathspec with at most 400 changed
 * lines are each reviewed as a focused and a deep review at 32k would prepare them (no model call).
 * Reports, per mode: changed lines inside a function of at most 120 lines whose whole function is in
 * the prompt (all, and only functions that existed before), calls on changed lines to a function
 * defined once elsewhere in the repository whose definition line is in the prompt (a method call,
 * `req.get()`, counts when one definition elsewhere sits on that object, `req.get = function`;
 * `calledByName` is the share of the calls whose name alone is defined once), and the median
 * prompt tokens per changed line; `base` is the same with the diff alone. `CODE_CONTEXT_DEBUG=1` lists
 * the focused misses and the calls.
 */
export async function codeContextCoverageBench() {
  const repos = (process.env.CODE_CONTEXT_REPOS ?? '').split(',').filter(Boolean);
  if (repos.length === 0) {
    console.log('code-context-coverage: set CODE_CONTEXT_REPOS=<git dir>[:<pathspec>],… to measure');
    return;
  }
  for (const entry of repos) {
    const [repo, pathspec = '.'] = entry.split(':') as [string, string?];
    const log = execFileSync('git', ['--git-dir', repo, 'log', '--no-merges', '--format=%H', '--numstat', '-n', '400', '--', pathspec], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const commits: string[] = [];
    for (const block of log.split(/\n(?=[0-9a-f]{40}\n)/)) {
      const [sha, ...stats] = block.trim().split('\n');
      const changed = stats.filter(Boolean).reduce((sum, line) => sum + (Number(line.split('\t')[0]) || 0) + (Number(line.split('\t')[1]) || 0), 0);
      if (sha && changed > 0 && changed <= MAX_CHANGED_LINES) commits.push(sha);
      if (commits.length >= COMMITS) break;
    }
    const tallies = { focused: emptyTally(), deep: emptyTally() };
    for (const commit of commits) await measureCommit(repo, commit, tallies);
    for (const mode of ['focused', 'deep'] as const) {
      const tally = tallies[mode];
      const share = (hit: number, all: number) => (all === 0 ? 'n/a' : `${((100 * hit) / all).toFixed(0)}%`);
      report(`coverage ${repo.split('/').slice(-2, -1)[0] ?? repo} ${mode}`, {
        commits: commits.length,
        wholeFunction: share(tally.scopedHit, tally.scoped),
        ofLines: tally.scoped,
        existedBefore: share(tally.existingHit, tally.existing),
        baseWholeFunction: share(tally.baseScopedHit, tally.scoped),
        calledDefinition: share(tally.calledHit, tally.called),
        ofCalls: tally.called,
        calledByName: share(tally.calledByNameHit, tally.calledByName),
        ofCallsByName: tally.calledByName,
        baseCalledDefinition: share(tally.baseCalledHit, tally.called),
        tokensPerLine: percentile(tally.tokensPerLine, 50),
        baseTokensPerLine: percentile(tally.baseTokensPerLine, 50),
      });
    }
  }
}
