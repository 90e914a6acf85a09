import { globMatcher } from '../repository-config/path-globs.js';
import type { CodeIndex } from './code-index.js';
import { lineRange, renderLines } from './context-block.js';
import { definitionBlock } from './definition-blocks.js';
import { receiversFirst } from './find-symbols.js';
import { safeRepositoryPath } from './snapshot/snapshot-paths.js';

/**
 * What deep mode's tools answer (decisions.md §11), on the reviewed commit's snapshot only: a path
 * that leaves the repository (`..`, absolute) is refused, a file the snapshot does not hold is not
 * found. Answers are plain text; the caller caps their size.
 */
export type ToolAnswer = { text: string } | { error: string };

const MAX_READ_LINES = 300;
const MAX_DEFINITIONS = 5;
const MAX_REFERENCES = 30;
const MAX_MATCHES = 40;
/** Files a search reads at most, and its time: one search must not stall the review. */
const MAX_SEARCHED_FILES = 5_000;
const SEARCH_TIME_MS = 2_000;
const NOT_INDEXED = 'not available: this repository is over the snapshot size and was read file by file; use read_file';

export async function readFileAnswer(index: CodeIndex, input: { path: string; startLine?: number; endLine?: number }): Promise<ToolAnswer> {
  const path = safeRepositoryPath(input.path);
  if (path === undefined) return { error: 'refused: give a path relative to the repository root, without ".."' };
  const lines = await index.lines(path);
  if (lines === null) return { error: `not found: ${path} is not a file of this commit (or is too large or not text)` };
  const start = Math.max(1, input.startLine ?? 1);
  const end = Math.min(lines.length, input.endLine ?? lines.length, start + MAX_READ_LINES - 1);
  const more = Math.min(lines.length, input.endLine ?? lines.length) > end ? `\n… the file goes on to line ${lines.length}` : '';
  return { text: `${path} lines ${start}-${end} of ${lines.length}\n${renderLines(lines, lineRange(start, end, lines.length))}${more}` };
}

export async function findDefinitionAnswer(index: CodeIndex, input: { symbol: string }): Promise<ToolAnswer> {
  if (index.snapshot.mode !== 'tarball') return { error: NOT_INDEXED };
  // `req.get`, `View.prototype.render`: the definitions on that object first.
  const path = input.symbol.replace(/\.prototype\./g, '.').split('.');
  const name = path.at(-1)!;
  const receivers = new Set(path.length > 1 ? [path.at(-2)!] : []);
  const found = receiversFirst((await index.symbolIndex()).definitions.get(name) ?? [], receivers);
  if (found.length === 0) return { error: `no definition of ${name} in this repository` };
  const parts: string[] = [];
  for (const { path, symbol } of found.slice(0, MAX_DEFINITIONS)) {
    const lines = await index.lines(path);
    if (!lines) continue;
    const block = definitionBlock(path, lines, symbol);
    parts.push(`${path} lines ${block.startLine}-${block.endLine}\n${block.variants[0] ?? ''}`);
  }
  const more = found.length > MAX_DEFINITIONS ? `\n… and ${found.length - MAX_DEFINITIONS} more definitions of ${name}` : '';
  return { text: parts.join('\n') + more };
}

export async function findReferencesAnswer(index: CodeIndex, input: { symbol: string }): Promise<ToolAnswer> {
  if (index.snapshot.mode !== 'tarball') return { error: NOT_INDEXED };
  const name = input.symbol.slice(input.symbol.lastIndexOf('.') + 1);
  const calls = (await index.symbolIndex()).calls.get(name) ?? [];
  if (calls.length === 0) return { error: `no call of ${name} in this repository` };
  const parts: string[] = [];
  for (const call of calls.slice(0, MAX_REFERENCES)) {
    const lines = await index.lines(call.path);
    parts.push(`${call.path}:${call.line}: ${(lines?.[call.line - 1] ?? '').trim().slice(0, 200)}`);
  }
  const more = calls.length > MAX_REFERENCES ? `\n… and ${calls.length - MAX_REFERENCES} more calls` : '';
  return { text: parts.join('\n') + more };
}

export async function searchAnswer(index: CodeIndex, input: { text: string; pathGlob?: string }): Promise<ToolAnswer> {
  if (index.snapshot.mode !== 'tarball') return { error: NOT_INDEXED };
  if (input.text.length === 0) return { error: 'give a text to search for' };
  const matches = input.pathGlob ? globMatcher([input.pathGlob]) : undefined;
  const deadline = performance.now() + SEARCH_TIME_MS;
  const found: string[] = [];
  let searched = 0;
  for (const file of index.snapshot.files) {
    if (found.length >= MAX_MATCHES || searched >= MAX_SEARCHED_FILES || performance.now() > deadline) break;
    if (matches && !matches(file.path)) continue;
    searched++;
    const lines = await index.lines(file.path);
    lines?.forEach((line, at) => {
      if (found.length < MAX_MATCHES && line.includes(input.text)) found.push(`${file.path}:${at + 1}: ${line.trim().slice(0, 200)}`);
    });
  }
  return found.length > 0 ? { text: found.join('\n') } : { error: `no line holds "${input.text}"${input.pathGlob ? ` in ${input.pathGlob}` : ''}` };
}
