import type { LanguageId, SymbolKind } from './outline-types.js';

/**
 * What the outline walker looks for in one grammar (node type names of the grammars pinned in
 * package.json: `tree-sitter-wasms`, built with tree-sitter 0.20). Names come from the node's `name`
 * field, else from its C-style `declarator`, else from its first identifier child (Kotlin).
 */
export interface LanguageSpec {
  /** File name in `tree-sitter-wasms/out/` without `tree-sitter-` and `.wasm`. */
  grammar: string;
  symbols: Readonly<Record<string, SymbolKind>>;
  /** Call node type → the field holding the callee (`null`: its first named child). */
  calls: Readonly<Record<string, string | null>>;
  /** Node types naming a type where it is used. */
  typeReferences: readonly string[];
  comments: readonly string[];
}

const JS_SYMBOLS: Record<string, SymbolKind> = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  function: 'function',
  function_expression: 'function',
  arrow_function: 'function',
  method_definition: 'method',
  class_declaration: 'class',
  class: 'class',
};
const TS_SYMBOLS: Record<string, SymbolKind> = {
  ...JS_SYMBOLS,
  abstract_class_declaration: 'class',
  interface_declaration: 'type',
  type_alias_declaration: 'type',
  enum_declaration: 'type',
};
const JS_CALLS = { call_expression: 'function', new_expression: 'constructor' };
const C_SYMBOLS: Record<string, SymbolKind> = {
  function_definition: 'function',
  struct_specifier: 'type',
  enum_specifier: 'type',
  union_specifier: 'type',
  type_definition: 'type',
};

export const LANGUAGE_SPECS: Readonly<Record<LanguageId, LanguageSpec>> = {
  javascript: { grammar: 'javascript', symbols: JS_SYMBOLS, calls: JS_CALLS, typeReferences: [], comments: ['comment'] },
  typescript: { grammar: 'typescript', symbols: TS_SYMBOLS, calls: JS_CALLS, typeReferences: ['type_identifier'], comments: ['comment'] },
  tsx: { grammar: 'tsx', symbols: TS_SYMBOLS, calls: JS_CALLS, typeReferences: ['type_identifier'], comments: ['comment'] },
  python: {
    grammar: 'python',
    symbols: { function_definition: 'function', class_definition: 'class' },
    calls: { call: 'function' },
    typeReferences: [],
    comments: ['comment'],
  },
  go: {
    grammar: 'go',
    symbols: { function_declaration: 'function', method_declaration: 'method', func_literal: 'function', type_spec: 'type' },
    calls: { call_expression: 'function' },
    typeReferences: ['type_identifier'],
    comments: ['comment'],
  },
  java: {
    grammar: 'java',
    symbols: {
      method_declaration: 'method',
      constructor_declaration: 'method',
      class_declaration: 'class',
      interface_declaration: 'type',
      enum_declaration: 'type',
      record_declaration: 'class',
      annotation_type_declaration: 'type',
    },
    calls: { method_invocation: 'name', object_creation_expression: 'type' },
    typeReferences: ['type_identifier'],
    comments: ['line_comment', 'block_comment', 'comment'],
  },
  rust: {
    grammar: 'rust',
    symbols: {
      function_item: 'function',
      impl_item: 'class',
      trait_item: 'type',
      struct_item: 'type',
      enum_item: 'type',
      union_item: 'type',
      type_item: 'type',
      mod_item: 'class',
      macro_definition: 'function',
    },
    calls: { call_expression: 'function', macro_invocation: 'macro' },
    typeReferences: ['type_identifier'],
    comments: ['line_comment', 'block_comment'],
  },
  ruby: {
    grammar: 'ruby',
    symbols: { method: 'method', singleton_method: 'method', class: 'class', module: 'class' },
    calls: { call: 'method' },
    typeReferences: [],
    comments: ['comment'],
  },
  csharp: {
    grammar: 'c_sharp',
    symbols: {
      method_declaration: 'method',
      constructor_declaration: 'method',
      local_function_statement: 'function',
      class_declaration: 'class',
      struct_declaration: 'type',
      record_declaration: 'class',
      interface_declaration: 'type',
      enum_declaration: 'type',
    },
    calls: { invocation_expression: 'function', object_creation_expression: 'type' },
    typeReferences: [],
    comments: ['comment'],
  },
  c: { grammar: 'c', symbols: C_SYMBOLS, calls: { call_expression: 'function' }, typeReferences: ['type_identifier'], comments: ['comment'] },
  cpp: {
    grammar: 'cpp',
    symbols: { ...C_SYMBOLS, class_specifier: 'class', alias_declaration: 'type' },
    calls: { call_expression: 'function' },
    typeReferences: ['type_identifier'],
    comments: ['comment'],
  },
  php: {
    grammar: 'php',
    symbols: {
      function_definition: 'function',
      method_declaration: 'method',
      class_declaration: 'class',
      interface_declaration: 'type',
      trait_declaration: 'type',
      enum_declaration: 'type',
    },
    calls: {
      function_call_expression: 'function',
      member_call_expression: 'name',
      nullsafe_member_call_expression: 'name',
      scoped_call_expression: 'name',
      object_creation_expression: null,
    },
    typeReferences: [],
    comments: ['comment'],
  },
  kotlin: {
    grammar: 'kotlin',
    symbols: {
      function_declaration: 'function',
      secondary_constructor: 'method',
      class_declaration: 'class',
      object_declaration: 'class',
      type_alias: 'type',
    },
    calls: { call_expression: null },
    typeReferences: ['type_identifier'],
    comments: ['comment', 'line_comment', 'multiline_comment'],
  },
};

const EXTENSIONS: Readonly<Record<string, LanguageId>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  java: 'java',
  rs: 'rust',
  rb: 'ruby',
  rake: 'ruby',
  cs: 'csharp',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
  php: 'php',
  kt: 'kotlin',
  kts: 'kotlin',
};

/** The language of a path by its extension; `undefined` for a file the reviewer has no grammar for. */
export function languageForPath(path: string): LanguageId | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return name === 'Rakefile' || name === 'Gemfile' ? 'ruby' : undefined;
  return EXTENSIONS[name.slice(dot + 1).toLowerCase()];
}
