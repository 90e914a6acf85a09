import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CodeIndex } from '../../src/code-context/code-index.js';
import type { ChangedFile } from '../../src/code-context/context-block.js';
import { MIN_CONTEXT_ROOM } from '../../src/code-context/context-room.js';
import { gatherChunkContext } from '../../src/code-context/gather-context.js';
import { RepositorySnapshot } from '../../src/code-context/snapshot/repository-snapshot.js';
import { fitContext } from '../../src/review/ask/context-section.js';
import { countTokens } from '../../src/review/prepare/tokens.js';

const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** `count` Python files, each a helper and a function calling it; line 7 (the call) is changed. */
function repository(count: number, extra: Record<string, string> = {}): { index: CodeIndex; reads: () => string[]; changed: ChangedFile[] } {
  const folder = mkdtempSync(join(tmpdir(), 'room-'));
  folders.push(folder);
  const files = Array.from({ length: count }, (_, at) => ({
    path: `pkg/mod_${at}.py`,
    text: `def helper_${at}(x):\n    return x + ${at}\n\n\ndef work_${at}(values):\n    total = 0\n    total += helper_${at}(values)\n    return total\n`,
  }));
  for (const { path, text } of [...files, ...Object.entries(extra).map(([path, text]) => ({ path, text }))]) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  const listed = [...files, ...Object.entries(extra).map(([path, text]) => ({ path, text }))].map(({ path, text }) => ({ path, size: text.length }));
  const snapshot = new RepositorySnapshot('tarball', 'c0ffee0', folder, listed, undefined);
  // The snapshot reads what it is asked for; the test only notes which files that was.
  const readFile = vi.spyOn(snapshot, 'readFile');
  const index = new CodeIndex(snapshot, { maxIndexedFiles: 5_000, indexTimeMs: 60_000 });
  return { index, reads: () => [...new Set(readFile.mock.calls.map(([path]) => path))], changed: files.map(({ path }) => ({ path, lines: [7] })) };
}

const FOCUSED = { definitions: true, callers: false };
/** The long function's scope below estimates at 372 tokens: with the heading it leaves 18 of this room. */
const ROOM_OF_LONG = 440;

describe('code context gathered for the room the prompt leaves', () => {
  it('below the least room nothing is read: no file, no outline, no symbol index', async () => {
    const { index, reads, changed } = repository(5);
    const symbolIndex = vi.spyOn(index, 'symbolIndex');
    expect(await gatherChunkContext(index, changed, FOCUSED, MIN_CONTEXT_ROOM - 1)).toEqual([]);
    expect(reads()).toEqual([]);
    expect(symbolIndex).not.toHaveBeenCalled();
  });

  it('with ample room the blocks are the same as unbounded, and so is their fit', async () => {
    const unbounded = await gatherChunkContext(repository(12).index, repository(12).changed, FOCUSED);
    const { index, changed } = repository(12);
    const bounded = await gatherChunkContext(index, changed, FOCUSED, 20_000);
    expect(bounded).toEqual(unbounded);
    expect(bounded.filter((block) => block.kind === 'scope')).toHaveLength(12);
    expect(bounded.filter((block) => block.kind === 'definition')).toHaveLength(12);
    expect(fitContext(bounded, 20_000, null)).toEqual(fitContext(unbounded, 20_000, null));
  });

  it('a tight room: files are outlined only while their blocks leave room, and what is gathered fits it', async () => {
    const { index, reads, changed } = repository(40);
    const blocks = await gatherChunkContext(index, changed, FOCUSED, 400);
    // The first few files take the room; the rest are never read.
    expect(reads().length).toBeGreaterThan(1);
    expect(reads().length).toBeLessThan(10);
    expect(reads()).toEqual(changed.slice(0, reads().length).map((file) => file.path));
    const fitted = fitContext(blocks, 400, null);
    expect(countTokens(fitted.section!)).toBeLessThanOrEqual(400);
    // Each file read gave its scope and its helper's definition, and they reach the prompt.
    expect(fitted.stats).toMatchObject({ scopes: reads().length, definitions: reads().length });
    // Unbounded, the 40 scopes share the scopes' part of the room and none fits its share.
    const unbounded = repository(40);
    expect(fitContext(await gatherChunkContext(unbounded.index, unbounded.changed, FOCUSED), 400, null).stats.scopes).toBe(0);
  });

  it('definitions are not looked up (nor the symbol index built) once the scopes take the room', async () => {
    // A change to every line of a long function: its scope alone takes the room.
    const steps = Array.from({ length: 40 }, (_, at) => `    total += sum(values) * ${at}`).join('\n');
    const { index, changed } = repository(3, { 'pkg/long.py': `def long(values):\n${steps}\n    return total\n` });
    const long = { path: 'pkg/long.py', lines: Array.from({ length: 40 }, (_, at) => at + 2) };
    const symbolIndex = vi.spyOn(index, 'symbolIndex');
    const blocks = await gatherChunkContext(index, [long, ...changed], FOCUSED, ROOM_OF_LONG);
    expect(blocks.map((block) => block.kind)).toEqual(['scope']);
    // `sum` is defined nowhere in the repository: looking it up would have built the symbol index.
    expect(symbolIndex).not.toHaveBeenCalled();
  });

  it('once the scopes gathered fill their share, later files are not outlined: their scopes could only push one out', async () => {
    // 30 files each changed throughout a 30-line function (a large pull request's chunk).
    const body = Array.from({ length: 30 }, (_, at) => `    total += compute(values, ${at})`).join('\n');
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, at) => [`pkg/long_${at}.py`, `def long_${at}(values):\n${body}\n    return total\n`]));
    const changed = Object.keys(extra).map((path) => ({ path, lines: Array.from({ length: 30 }, (_, at) => at + 2) }));
    const room = 1_200;
    const { index, reads } = repository(0, extra);
    // No symbol index (a large pull request's), which would read every file for `compute`.
    const bounded = fitContext(await gatherChunkContext(index, changed, { ...FOCUSED, symbolIndex: false }, room), room, null);
    expect(reads().length).toBeLessThan(10);
    expect(bounded.stats.scopes).toBeGreaterThan(0);
    // Gathering them all, the 30 scopes share the part and none fits.
    const all = repository(0, extra);
    expect(fitContext(await gatherChunkContext(all.index, changed, FOCUSED), room, null).stats.scopes).toBe(0);
  });
});
