/** The languages the reviewer parses with a tree-sitter grammar. */
export const PARSED_LANGUAGES = [
  'typescript',
  'tsx',
  'javascript',
  'python',
  'go',
  'java',
  'rust',
  'ruby',
  'csharp',
  'c',
  'cpp',
  'php',
  'kotlin',
] as const;

export type LanguageId = (typeof PARSED_LANGUAGES)[number];

export type SymbolKind = 'function' | 'method' | 'class' | 'type';

/**
 * A function, method, class or type defined in a file. Lines are 1-based and inclusive.
 * `headerEndLine` is the last line before the body (the signature); `docStartLine`/`docEndLine`
 * the doc comment above it, or a Python docstring inside it, when there is one.
 */
export interface CodeSymbol {
  name: string;
  kind: SymbolKind;
  startLine: number;
  endLine: number;
  headerEndLine: number;
  docStartLine?: number;
  docEndLine?: number;
  /**
   * The enclosing class, the qualifier of an out-of-class C++ definition (`Arena` of
   * `Arena::Allocate`), or the object a function is assigned to (`req` of `req.get = function`,
   * `View` of `View.prototype.render = function`).
   */
  container?: string;
  /**
   * Other names the definition answers to: the function's own name when it is assigned under
   * another (`contentType` of `res.type = function contentType`), the other targets of a chained
   * assignment (`header` of `req.get = req.header = function`).
   */
  aliases?: string[];
}

/** One import: the module as written (`./util`, `requests.compat`, `fmt`) and the names it binds. */
export interface CodeImport {
  source: string;
  names: string[];
  line: number;
}

/** A name the code uses on a line: a call's callee or a type it names. */
export interface CodeReference {
  name: string;
  line: number;
  kind: 'call' | 'type';
  /**
   * A method call's object, by its last name (`req` of `req.get()`, `app` of `this.app.get()`);
   * `this`/`self` stand for the container of the function the call is in.
   */
  receiver?: string;
}

export interface FileOutline {
  language: LanguageId;
  lineCount: number;
  /** In source order (an enclosing symbol before the ones it contains). */
  symbols: CodeSymbol[];
  imports: CodeImport[];
  references: CodeReference[];
}

/** Why a file has no outline; §11: such a file falls back to line-based context, never fails the review. */
export type OutlineSkipReason = 'no grammar' | 'too large' | 'binary' | 'minified' | 'timed out';

export type OutlineResult = { ok: true; outline: FileOutline } | { ok: false; reason: OutlineSkipReason };
