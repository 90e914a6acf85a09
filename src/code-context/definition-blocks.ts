import type { CodeIndex, IndexedCall } from './code-index.js';
import { distinctVariants, lineRange, renderLines, type ContextBlock } from './context-block.js';
import { ContextRoom } from './context-room.js';
import { definitionsNamed, enclosingScope, namesOf, onReceiver, receiversFirst } from './find-symbols.js';
import { languageForPath } from './language-specs.js';
import type { CodeSymbol, FileOutline } from './outline-types.js';
import { resolveImport } from './resolve-imports.js';

/** A definition's body is shown when it is at most this long; longer ones show their signature and doc. */
const SHORT_BODY_LINES = 40;
/** Definitions of one name at most: more would be a guess between unrelated namesakes. */
const MAX_DEFINITIONS_PER_NAME = 2;
/** A name defined in more files of the index than this is too common to tell which one is meant. */
const MAX_INDEX_CANDIDATES = 3;
const MAX_NAMES_PER_CHUNK = 40;
/** Deep mode: call sites per changed function, and lines shown around each. */
const CALLERS_PER_FUNCTION = 3;
const MAX_CALLER_BLOCKS = 8;
const CALLER_WINDOW = 3;

/** A changed file's outline and the names its changed lines use. */
export interface ChangedOutline {
  path: string;
  outline: FileOutline;
  changed: readonly number[];
  /** Lines already shown (its scopes): a definition inside them is not repeated. */
  shown: ReadonlyArray<[number, number]>;
}

/**
 * The definitions of what the changed lines call or name as types, outside the code already shown:
 * through the file's imports first, then in the same file, then in the repository's symbol index
 * (unless told not to: a large pull request's).
 * Given one changed file at a time, so a chunk's files are outlined only while their scopes and
 * definitions leave room: a name is looked up only while `room` is not full.
 */
export class DefinitionFinder {
  readonly blocks: ContextBlock[] = [];
  private readonly seen = new Set<string>();
  private names = 0;

  constructor(
    private readonly index: CodeIndex,
    private readonly room: ContextRoom,
    private readonly options = { symbolIndex: true },
  ) {}

  async add(file: ChangedOutline): Promise<void> {
    const changed = new Set(file.changed);
    // Each name used, with the objects it is called on (`req` of `req.get()`).
    const used = new Map<string, Set<string>>();
    for (const reference of file.outline.references) {
      if (!changed.has(reference.line)) continue;
      const receivers = used.get(reference.name) ?? used.set(reference.name, new Set()).get(reference.name)!;
      if (reference.receiver !== undefined) receivers.add(reference.receiver);
    }
    const imported = importedFiles(this.index, file);
    for (const [name, receivers] of used) {
      if (this.names++ >= MAX_NAMES_PER_CHUNK || this.room.full()) return;
      const found = await findDefinitions(this.index, file, { name, receivers }, imported, this.options.symbolIndex);
      for (const { path, symbol } of found) {
        const key = `${path}:${symbol.startLine}`;
        if (this.seen.has(key)) continue;
        this.seen.add(key);
        const lines = await this.index.lines(path);
        if (lines !== null) this.blocks.push(...this.room.add([definitionBlock(path, lines, symbol)]));
      }
    }
  }
}

/**
 * Where `name` is defined, for calls on `receivers`: definitions on the called object come first
 * (`req.get` for `req.get()`, not `res.get`), and one on the object elsewhere in the repository wins
 * over a namesake on another object in the changed file.
 */
async function findDefinitions(index: CodeIndex, file: ChangedOutline, used: { name: string; receivers: ReadonlySet<string> }, imported: Promise<ImportedFiles>, symbolIndex: boolean): Promise<Array<{ path: string; symbol: CodeSymbol }>> {
  const { name, receivers } = used;
  const { byName, modules } = await imported;
  // `import {a} from './x'` names the file; `import x` / Go packages / `use` of a module may hold it.
  for (const candidates of [byName.get(name) ?? [], modules]) {
    const found: Array<{ path: string; symbol: CodeSymbol }> = [];
    for (const path of candidates) {
      const outline = await index.outline(path);
      if (outline?.ok) for (const symbol of definitionsNamed(outline.outline, name)) found.push({ path, symbol });
    }
    if (found.length > 0) return receiversFirst(found, receivers).slice(0, MAX_DEFINITIONS_PER_NAME);
  }
  const inFile = definitionsNamed(file.outline, name).map((symbol) => ({ path: file.path, symbol }));
  const notShown = (entries: typeof inFile) => entries.filter(({ symbol }) => !file.shown.some(([from, to]) => symbol.startLine >= from && symbol.endLine <= to)).slice(0, MAX_DEFINITIONS_PER_NAME);
  const onCalledObject = <T extends { symbol: CodeSymbol }>(entries: readonly T[]) => entries.filter((entry) => [...receivers].some((receiver) => onReceiver(entry.symbol, receiver)));
  if (onCalledObject(inFile).length > 0) return notShown(onCalledObject(inFile));
  if (!symbolIndex) return notShown(receiversFirst(inFile, receivers));
  let sameLanguage: Array<{ path: string; symbol: CodeSymbol }> | undefined;
  const fromIndex = async () => {
    const indexed = (await index.symbolIndex()).definitions.get(name) ?? [];
    const language = languageForPath(file.path);
    sameLanguage ??= indexed.filter((entry) => entry.path !== file.path && languageForPath(entry.path) === language);
    return sameLanguage;
  };
  const unambiguous = (entries: Array<{ path: string; symbol: CodeSymbol }>) => {
    const files = new Set(entries.map((entry) => entry.path));
    return files.size > 0 && files.size <= MAX_INDEX_CANDIDATES ? entries.slice(0, MAX_DEFINITIONS_PER_NAME) : [];
  };
  if (receivers.size > 0) {
    const elsewhere = onCalledObject(await fromIndex());
    if (elsewhere.length > 0) return unambiguous(elsewhere);
  }
  if (inFile.length > 0) return notShown(inFile);
  return unambiguous(await fromIndex());
}

interface ImportedFiles {
  /** Files an import binding the name resolves to. */
  byName: Map<string, string[]>;
  /** Files of imports that bind no single name (`import x`, Go packages, `use a::b`). */
  modules: string[];
}

async function importedFiles(index: CodeIndex, file: ChangedOutline): Promise<ImportedFiles> {
  const byName = new Map<string, string[]>();
  const modules = new Set<string>();
  for (const item of file.outline.imports) {
    const resolved = resolveImport(file.path, item, file.outline.language, index.snapshot.index);
    if (resolved.length === 0) continue;
    for (const name of item.names) byName.set(name, [...(byName.get(name) ?? []), ...resolved]);
    // A module import's names are the module itself (`import os.path`): what it defines may be called.
    for (const path of resolved) modules.add(path);
  }
  return { byName, modules: [...modules] };
}

/** Its doc comment and signature, and its body when short. */
export function definitionBlock(path: string, lines: readonly string[], symbol: CodeSymbol): ContextBlock {
  const start = Math.min(symbol.startLine, symbol.docStartLine ?? symbol.startLine);
  const docAndHeader = [...lineRange(start, symbol.headerEndLine, lines.length), ...lineRange(symbol.docStartLine ?? 0, symbol.docEndLine ?? -1, lines.length)];
  const whole = symbol.endLine - symbol.headerEndLine <= SHORT_BODY_LINES ? renderLines(lines, lineRange(start, symbol.endLine, lines.length)) : undefined;
  const signature = renderLines(lines, [...new Set(docAndHeader)].sort((a, b) => a - b));
  return {
    kind: 'definition',
    path,
    startLine: start,
    endLine: whole === undefined ? symbol.headerEndLine : symbol.endLine,
    label: `definition of ${symbol.container ? `${symbol.container}.` : ''}${symbol.name}`,
    variants: distinctVariants([whole, signature]),
  };
}

/**
 * Deep mode: where the functions and methods the change alters are called elsewhere, a few call
 * sites each with the lines around them and the header of the function they sit in, while the
 * blocks found (and those `room` already holds) leave room.
 */
export async function callerBlocks(index: CodeIndex, changedFunctions: ReadonlyArray<{ path: string; symbol: CodeSymbol }>, room = new ContextRoom(Number.POSITIVE_INFINITY)): Promise<ContextBlock[]> {
  if (changedFunctions.length === 0) return [];
  const { calls } = await index.symbolIndex();
  const blocks: ContextBlock[] = [];
  for (const { path, symbol } of changedFunctions) {
    for (const site of callSites(calls, path, symbol)) {
      if (blocks.length >= MAX_CALLER_BLOCKS || room.full()) return blocks;
      const lines = await index.lines(site.path);
      const outline = await index.outline(site.path);
      if (lines === null) continue;
      const around = lineRange(site.line - CALLER_WINDOW, site.line + CALLER_WINDOW, lines.length);
      const caller = outline?.ok ? enclosingScope(outline.outline, site.line, site.line) : undefined;
      const header = caller ? lineRange(caller.startLine, caller.headerEndLine, lines.length) : [];
      blocks.push(...room.add([{
        kind: 'caller' as const,
        path: site.path,
        startLine: Math.min(around[0] ?? site.line, header[0] ?? site.line),
        endLine: around.at(-1) ?? site.line,
        label: `call of ${symbol.name}${caller ? ` in ${caller.name}` : ''}`,
        variants: distinctVariants([renderLines(lines, [...new Set([...header, ...around])].sort((a, b) => a - b))]),
      }]));
    }
  }
  return blocks;
}

/**
 * The first calls of a function outside it, those on its own object first (`req.get()` for
 * `req.get`, before `map.get()`); the lists of common names are long, so the walk stops early.
 */
function callSites(calls: ReadonlyMap<string, IndexedCall[]>, path: string, symbol: CodeSymbol): IndexedCall[] {
  const onObject: IndexedCall[] = [];
  const others: IndexedCall[] = [];
  for (const name of namesOf(symbol)) {
    for (const site of calls.get(name) ?? []) {
      if (site.path === path && site.line >= symbol.startLine && site.line <= symbol.endLine) continue;
      if (symbol.container !== undefined && onReceiver(symbol, site.receiver)) {
        onObject.push(site);
        if (onObject.length >= CALLERS_PER_FUNCTION) return onObject;
      } else if (others.length < CALLERS_PER_FUNCTION) {
        others.push(site);
        if (symbol.container === undefined && others.length >= CALLERS_PER_FUNCTION) return others;
      }
    }
  }
  return [...onObject, ...others].slice(0, CALLERS_PER_FUNCTION);
}
