import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/code-context/code-index.js';
import { gatherChunkContext } from '../../src/code-context/gather-context.js';
import { RepositorySnapshot } from '../../src/code-context/snapshot/repository-snapshot.js';
import { fitChunkContext, promptRoom, scopesFit } from '../../src/review/ask/chunk-context.js';
import { buildReviewPrompt, DEFAULT_OUTPUT_RESERVE, reviewPromptTokens } from '../../src/review/ask/prompts.js';
import { prepareSizedAsReviewed } from '../helpers/review-sizing.js';
import { splitForScopes } from '../../src/review/ask/split-for-scopes.js';
import { MAX_CHUNKS_SPLIT_FOR_SCOPES } from '../../src/review/prepare/chunk-budget.js';
import { changedLinesOf } from '../../src/review/prepare/chunk-lines.js';
import { renderChunk, type ReviewChunk } from '../../src/review/prepare/chunking.js';
import { countTokens } from '../../src/review/prepare/tokens.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { MANY_SCOPES_FUNCTION_START, manyScopesCommits } from '../helpers/many-scopes-fixture.js';

const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

const CONTEXT_LENGTH = 32_000;
const mode = 'focused' as const;
const base = { mode, pullRequest: { title: 'many modules' } };

/** The fixture's diff prepared as the review step sizes it, its head as a snapshot, and the step's fitting. */
function reviewOf(commits: Array<Record<string, string>>) {
  const fixture = createGitFixture(commits);
  folders.push(fixture.dir);
  const diff = execFileSync('git', ['diff', fixture.shas.at(-2)!, fixture.shas.at(-1)!], { cwd: fixture.dir, encoding: 'utf8' });
  const paths = Object.keys(commits[0]!);
  const listed = paths.map((path) => ({ path, size: readFileSync(join(fixture.dir, path)).length }));
  const index = new CodeIndex(new RepositorySnapshot('tarball', fixture.shas.at(-1)!, fixture.dir, listed, undefined));
  const { prepared, keepsContextRoom } = prepareSizedAsReviewed(diff, base, { contextLength: CONTEXT_LENGTH, outputReserve: DEFAULT_OUTPUT_RESERVE[mode], mode, level: 'full' });
  const reviewablePaths = prepared.reviewable.map((file) => file.path);
  const room = (chunk: ReviewChunk, chunkCount: number) => promptRoom(reviewPromptTokens({ ...base, chunk, chunkCount, skipped: prepared.skipped, reviewablePaths }), CONTEXT_LENGTH, DEFAULT_OUTPUT_RESERVE[mode]);
  const fit = (chunk: ReviewChunk, chunkCount: number, blocks: Parameters<typeof fitChunkContext>[0]) => fitChunkContext(blocks, room(chunk, chunkCount), false, null);
  const split = (chunks: readonly ReviewChunk[], maxChunks: number) => splitForScopes(chunks, { gather, room, tools: false, commit: null, maxChunks });
  const gather = (chunk: ReviewChunk) => gatherChunkContext(index, changedLinesOf(chunk), { definitions: true, callers: false });
  return { prepared, keepsContextRoom, fit, gather, split };
}

/** The changed lines of a chunk, as `path:line`. */
const changedOf = (chunks: readonly ReviewChunk[]) => chunks.flatMap((chunk) => changedLinesOf(chunk).flatMap((file) => file.lines.map((line) => `${file.path}:${line}`)));

describe('a chunk split again until its enclosing scopes fit (decisions.md §11)', () => {
  const functionLines = 100;

  it("20 files whose 100-line functions overflow one chunk's room: each part shows every changed line's whole function, every line in one part", async () => {
    const { prepared, keepsContextRoom, fit, gather, split } = reviewOf(manyScopesCommits(20, functionLines));
    expect(keepsContextRoom).toBe(true);
    expect(prepared.chunks).toHaveLength(1);
    // Before: one chunk, and its scopes do not all fit beside its diff.
    const blocks = await gather(prepared.chunks[0]!);
    expect(blocks.filter((block) => block.kind === 'scope')).toHaveLength(20);
    expect(scopesFit(blocks, fit(prepared.chunks[0]!, 1, blocks))).toBe(false);

    const planned = await split(prepared.chunks, MAX_CHUNKS_SPLIT_FOR_SCOPES);
    expect(planned.length).toBeGreaterThan(1);
    expect(planned.length).toBeLessThanOrEqual(MAX_CHUNKS_SPLIT_FOR_SCOPES);
    const chunks = planned.map((entry) => entry.chunk);
    // Files apart: each file whole in one part, numbered and described again.
    expect(chunks.map((chunk) => chunk.index)).toEqual(chunks.map((_, at) => at));
    expect(chunks.flatMap((chunk) => chunk.files).sort()).toEqual(prepared.reviewable.map((file) => file.path).sort());
    expect(chunks.flatMap((chunk) => chunk.segments).every((segment) => segment.part === 1 && segment.parts === 1)).toBe(true);
    expect(changedOf(chunks).sort()).toEqual(changedOf(prepared.chunks).sort());
    for (const { chunk, blocks: gathered } of planned) {
      expect(countTokens(renderChunk(chunk))).toBe(chunk.tokens);
      expect(chunk.description).toMatch(/^\d+ files?, \d+ changed lines: lib\/module-/);
      const fitted = fit(chunk, chunks.length, gathered);
      for (const path of chunk.files) {
        // The whole function, numbered as in the file, in the part's prompt.
        const end = MANY_SCOPES_FUNCTION_START + functionLines - 1;
        expect(fitted.section).toContain(`${MANY_SCOPES_FUNCTION_START} function handle${path.match(/\d+/)![0]}(input) {\n`);
        expect(fitted.section).toMatch(new RegExp(`path="${path}" lines="${MANY_SCOPES_FUNCTION_START}-${end}"[^>]*>\\n(?:\\d+ [^\\n]*\\n){${functionLines}}</context>`));
      }
      const built = buildReviewPrompt({ ...base, chunk, chunkCount: chunks.length, codeContext: fitted.section, skipped: prepared.skipped, reviewablePaths: prepared.reviewable.map((file) => file.path) });
      expect(countTokens(built.system) + countTokens(built.prompt) + DEFAULT_OUTPUT_RESERVE[mode]).toBeLessThanOrEqual(CONTEXT_LENGTH);
    }
  });

  it('one file whose hunks overflow together is split hunk by hunk into parts of the file; past the cap, the last part allowed holds the rest', async () => {
    // 30 functions of 60 lines in one file, one line changed in each: 30 hunks, 30 scopes.
    const functionOf = (at: number, changed: boolean) => [
      `function step${at}(value) {`,
      ...Array.from({ length: 58 }, (_, line) => `  value = mix(value, ${at * 100 + line}, ${changed && line === 30 ? "'changed'" : `'stage ${line} of step ${at}'`});`),
      '}',
    ];
    const fileOf = (changed: boolean) => `${Array.from({ length: 30 }, (_, at) => functionOf(at, changed).join('\n')).join('\n\n')}\n`;
    const { prepared, fit, gather, split } = reviewOf([{ 'src/steps.js': fileOf(false) }, { 'src/steps.js': fileOf(true) }]);
    expect(prepared.chunks).toHaveLength(1);
    const original = changedOf(prepared.chunks).sort();

    const planned = await split(prepared.chunks, MAX_CHUNKS_SPLIT_FOR_SCOPES);
    const chunks = planned.map((entry) => entry.chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(changedOf(chunks).sort()).toEqual(original);
    expect(chunks.map((chunk) => chunk.segments.map((segment) => `${segment.part}/${segment.parts}`))).toEqual(chunks.map((_, at) => [`${at + 1}/${chunks.length}`]));
    expect(chunks[1]!.description).toContain(`src/steps.js (part 2 of ${chunks.length}, lines`);
    for (const { chunk, blocks } of planned) {
      expect(countTokens(renderChunk(chunk))).toBe(chunk.tokens);
      expect(scopesFit(blocks, fit(chunk, chunks.length, blocks))).toBe(true);
    }

    const capped = await split(prepared.chunks, 2);
    expect(capped).toHaveLength(2);
    expect(changedOf(capped.map((entry) => entry.chunk)).sort()).toEqual(original);
    expect(await split(prepared.chunks, 1)).toEqual([{ chunk: prepared.chunks[0], blocks: await gather(prepared.chunks[0]!) }]);
  });

  it('a chunk whose scopes fit comes back as it was, with its blocks', async () => {
    const { prepared, split } = reviewOf(manyScopesCommits(2, 20));
    const planned = await split(prepared.chunks, MAX_CHUNKS_SPLIT_FOR_SCOPES);
    expect(planned.map((entry) => entry.chunk)).toEqual(prepared.chunks);
    expect(planned[0]!.blocks.filter((block) => block.kind === 'scope')).toHaveLength(2);
  });
});
