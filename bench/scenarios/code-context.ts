import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodeIndex } from '../../src/code-context/code-index.js';
import { gatherChunkContext } from '../../src/code-context/gather-context.js';
import { RepositorySnapshot } from '../../src/code-context/snapshot/repository-snapshot.js';
import { fitContext } from '../../src/review/ask/context-section.js';
import { percentile } from '../lib/stats.js';
import { report } from '../lib/report.js';

const CHUNKS = 300;
/** Files a chunk changes, and changed lines per file (spread over the file's functions). */
const FILES_PER_CHUNK = 3;
const LINES_PER_FILE = 6;
/** The room a focused review at 32k leaves for context on an ordinary chunk. */
const ROOM = 8_000;

function listFiles(root: string, folder = root): Array<{ path: string; size: number }> {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = join(folder, entry.name);
    if (entry.isDirectory()) return listFiles(root, full);
    return entry.isFile() ? [{ path: relative(root, full), size: statSync(full).size }] : [];
  });
}

/** Deterministic pseudo-random numbers, so runs compare. */
function random(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/**
 * decisions.md §11's "time to prepare a chunk's context, the snapshot already cached" (target: p99
 * under 50 ms): this service's own source (`src/`, real TypeScript) as a whole snapshot, then 300
 * chunks of 3 changed files with 6 changed lines each, every chunk gathered (scopes, definitions
 * through imports and the symbol index, callers as in deep mode) and fitted to 8,000 tokens. The
 * symbol index is built once per snapshot (reported apart); outlines are cached per snapshot.
 */
export async function codeContextBench() {
  const workspace = mkdtempSync(join(tmpdir(), 'bench-context-'));
  try {
    cpSync(fileURLToPath(new URL('../../src', import.meta.url)), join(workspace, 'src'), { recursive: true });
    const files = listFiles(workspace).filter((file) => file.path.endsWith('.ts'));
    const index = new CodeIndex(new RepositorySnapshot('tarball', 'bench', workspace, files, undefined));
    const indexStarted = performance.now();
    const symbols = await index.symbolIndex();
    const indexMs = performance.now() - indexStarted;

    const next = random(19);
    const times: number[] = [];
    let tokens = 0;
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const changed = Array.from({ length: FILES_PER_CHUNK }, () => {
        const file = files[Math.floor(next() * files.length)]!;
        const lineCount = Math.max(1, Math.round(file.size / 40));
        const lines = [...new Set(Array.from({ length: LINES_PER_FILE }, () => 1 + Math.floor(next() * lineCount)))].sort((a, b) => a - b);
        return { path: file.path, lines };
      });
      const started = performance.now();
      const blocks = await gatherChunkContext(index, changed, { definitions: true, callers: true });
      tokens += fitContext(blocks, ROOM, 'bench').stats.tokens;
      times.push(performance.now() - started);
    }
    // The first chunks parse their files for the first time; p99 is over all of them.
    report('code context per chunk (cached snapshot)', {
      files: files.length,
      definitions: symbols.definitions.size,
      indexMs,
      p50Ms: percentile(times, 50),
      p99Ms: percentile(times, 99),
      maxMs: Math.max(...times),
      meanTokens: tokens / CHUNKS,
      targetP99Ms: 50,
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
