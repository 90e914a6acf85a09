import { createRequire } from 'node:module';
import { Language, Parser, Query } from 'web-tree-sitter';
import { LANGUAGE_SPECS } from './language-specs.js';
import type { LanguageId } from './outline-types.js';
import { IMPORT_READERS } from './read-imports.js';

const require = createRequire(import.meta.url);

/** A language's parser and the query that finds what an outline holds (capture names: `OutlineCapture`). */
export interface Grammar {
  parser: Parser;
  query: Query;
}

export type OutlineCapture = 'symbol' | 'call' | 'type' | 'comment' | 'import';

let runtime: Promise<void> | undefined;
const grammars = new Map<LanguageId, Promise<Grammar>>();
/** The load under way: the next one waits for it (see `grammarFor`). */
let loading: Promise<unknown> = Promise.resolve();

/**
 * One parser per language, its grammar loaded on first use (a grammar's WASM is 0.2–4 MB: a
 * worker that only sees Python never loads the others). Parsing is synchronous, so one parser per
 * language serves every review of the process. Grammars load one at a time: web-tree-sitter links
 * each into one shared symbol table, and two loads side by side could each see the other's
 * half-linked symbols and fail (`bad export type for 'tree_sitter_…_external_scanner_create'`):
 * a chunk of JavaScript and TypeScript files then had no context at all, one run in two.
 */
export function grammarFor(language: LanguageId): Promise<Grammar> {
  let grammar = grammars.get(language);
  if (!grammar) {
    grammar = loading.then(() => loadGrammar(language));
    loading = grammar.catch(() => undefined);
    grammars.set(language, grammar);
    // A failed load (a missing file) is not cached: the next review tries again.
    grammar.catch(() => grammars.delete(language));
  }
  return grammar;
}

async function loadGrammar(language: LanguageId): Promise<Grammar> {
  runtime ??= Parser.init();
  await runtime;
  const file = require.resolve(`tree-sitter-wasms/out/tree-sitter-${LANGUAGE_SPECS[language].grammar}.wasm`);
  const loaded = await Language.load(file);
  const parser = new Parser();
  parser.setLanguage(loaded);
  // V8 compiles a module's functions on first call: a first parse here keeps that cost out of the
  // first file's time limit.
  parser.parse('\n')?.delete();
  return { parser, query: new Query(loaded, outlineQuery(loaded, language)) };
}

/**
 * One pattern per node type of the language's tables. The query runs inside the WASM module and
 * hands back only those nodes: walking every node from JavaScript cost ten times as much.
 * Types a grammar version does not have are left out (a query naming one does not compile).
 */
function outlineQuery(loaded: Language, language: LanguageId): string {
  const spec = LANGUAGE_SPECS[language];
  const groups: Array<[OutlineCapture, readonly string[]]> = [
    ['comment', spec.comments],
    ['type', spec.typeReferences],
    ['symbol', Object.keys(spec.symbols)],
    ['call', Object.keys(spec.calls)],
    ['import', Object.keys(IMPORT_READERS[language])],
  ];
  return groups
    .map(([capture, types]) => types.filter((type) => loaded.idForNodeType(type, true) !== null).map((type) => `(${type}) @${capture}`).join('\n'))
    .join('\n');
}
