import type { Node } from 'web-tree-sitter';
import type { CodeImport, LanguageId } from './outline-types.js';

type ImportReader = (node: Node) => CodeImport[];

const line = (node: Node) => node.startPosition.row + 1;
const unquote = (text: string) => text.replace(/^[\s'"`<]+|[\s'"`>;]+$/g, '');
const lastSegment = (path: string, separator: RegExp) => path.split(separator).filter(Boolean).pop() ?? path;
const namedChildren = (node: Node) => node.namedChildren.filter((child): child is Node => child !== null);

function descendants(node: Node, types: readonly string[]): Node[] {
  return node.descendantsOfType(types as string[]).filter((child): child is Node => child !== null);
}

/** `import a, {b as c} from './x'`, `export {d} from './y'`. */
const readJsImport: ImportReader = (node) => {
  const source = node.childForFieldName('source');
  if (!source) return [];
  const names: string[] = [];
  for (const clause of namedChildren(node)) {
    if (clause.type !== 'import_clause' && clause.type !== 'export_clause') continue;
    for (const part of namedChildren(clause)) {
      if (part.type === 'identifier') names.push(part.text);
      else if (part.type === 'namespace_import') names.push(...descendants(part, ['identifier']).map((id) => id.text));
      else for (const specifier of descendants(part, ['import_specifier', 'export_specifier'])) {
        const name = specifier.childForFieldName('name');
        if (name) names.push(name.text);
      }
    }
  }
  return [{ source: unquote(source.text), names, line: line(node) }];
};

/** `const {a, b} = require('./x')` and `const x = require('x')`. */
const readRequire: ImportReader = (node) => {
  const callee = node.childForFieldName('function');
  if (callee?.text !== 'require') return [];
  const argument = node.childForFieldName('arguments')?.namedChildren[0];
  if (argument?.type !== 'string') return [];
  const binding = node.parent?.type === 'variable_declarator' ? node.parent.childForFieldName('name') : null;
  const names = !binding ? [] : binding.type === 'identifier' ? [binding.text] : descendants(binding, ['shorthand_property_identifier_pattern', 'identifier']).map((id) => id.text);
  return [{ source: unquote(argument.text), names, line: line(node) }];
};

/** `import a.b as c, d` (one import each) and `from .x import y, z`. */
const readPythonImport: ImportReader = (node) => {
  const module = node.childForFieldName('module_name');
  const bound: Array<{ original: string; alias?: string }> = [];
  for (let index = 0; index < node.childCount; index++) {
    const name = node.fieldNameForChild(index) === 'name' ? node.child(index) : null;
    if (!name) continue;
    if (name.type !== 'aliased_import') bound.push({ original: name.text });
    else bound.push({ original: name.childForFieldName('name')?.text ?? name.text, alias: name.childForFieldName('alias')?.text });
  }
  if (module) {
    const names = bound.map((name) => name.alias ?? name.original);
    if (node.namedChildren.some((child) => child?.type === 'wildcard_import')) names.push('*');
    return [{ source: module.text, names, line: line(node) }];
  }
  // `import a.b` binds `a`; the module read is `a.b`.
  return bound.map((name) => ({ source: name.original, names: [name.alias ?? name.original.split('.')[0]!], line: line(node) }));
};

const readGoImport: ImportReader = (node) => {
  const path = node.childForFieldName('path');
  if (!path) return [];
  const source = unquote(path.text);
  const alias = node.childForFieldName('name')?.text;
  return [{ source, names: [alias ?? lastSegment(source, /\//)], line: line(node) }];
};

/** Java `import a.b.C;`, Kotlin `import a.b.C as D`, C# `using A.B;`: the dotted name as written. */
function readDottedImport(node: Node): CodeImport[] {
  const text = node.text
    .replace(/^\s*(import|using|global\s+using)\s+(static\s+)?/, '')
    .replace(/;\s*$/, '')
    .trim();
  // Kotlin `a.B as C`, C# `C = A.B`.
  const aliased = /^(?<path>.*?)\s+as\s+(?<alias>\w+)$/.exec(text)?.groups ?? /^(?<alias>\w+)\s*=\s*(?<path>.+)$/.exec(text)?.groups;
  const path = aliased?.path ?? text;
  const alias = aliased?.alias;
  const source = path.replace(/\s+/g, '');
  if (!source) return [];
  const last = lastSegment(source, /\./);
  return [{ source, names: [alias ?? last].filter((name) => name !== '*'), line: line(node) }];
}

/** `use a::b::{C, d as e};` */
const readRustUse: ImportReader = (node) => {
  const argument = node.childForFieldName('argument');
  if (!argument) return [];
  const source = argument.text.replace(/\s+/g, '');
  const list = descendants(argument, ['use_list'])[0];
  const names = list
    ? namedChildren(list).map((item) => (item.type === 'use_as_clause' ? (item.childForFieldName('alias')?.text ?? '') : lastSegment(item.text, /::/)))
    : [argument.type === 'use_as_clause' ? (argument.childForFieldName('alias')?.text ?? '') : lastSegment(source, /::/)];
  return [{ source, names: names.filter((name) => name && name !== '*' && name !== 'self'), line: line(node) }];
};

/** `require 'x'`, `require_relative '../y'`. */
const readRubyRequire: ImportReader = (node) => {
  const method = node.childForFieldName('method')?.text;
  if (method !== 'require' && method !== 'require_relative' || node.childForFieldName('receiver')) return [];
  const argument = node.childForFieldName('arguments')?.namedChildren[0];
  if (argument?.type !== 'string') return [];
  const source = unquote(argument.text);
  return [{ source: method === 'require_relative' ? `./${source.replace(/^\.\//, '')}` : source, names: [], line: line(node) }];
};

const readInclude: ImportReader = (node) => {
  const path = node.childForFieldName('path');
  return path ? [{ source: unquote(path.text), names: [], line: line(node) }] : [];
};

/** PHP `use A\B\C as D;` (one clause) and `require_once 'x.php'`. */
const readPhpUse: ImportReader = (node) => {
  if (node.type !== 'namespace_use_clause') {
    const target = node.namedChildren[0];
    return target?.type === 'string' || target?.type === 'encapsed_string' ? [{ source: unquote(target.text), names: [], line: line(node) }] : [];
  }
  const name = namedChildren(node).find((child) => child.type === 'qualified_name' || child.type === 'name');
  if (!name) return [];
  const source = name.text.replace(/^\\/, '');
  const alias = descendants(node, ['namespace_aliasing_clause'])[0]?.namedChildren[0]?.text;
  return [{ source, names: [alias ?? lastSegment(source, /\\/)], line: line(node) }];
};

/** Import node types per language and how to read them. */
export const IMPORT_READERS: Readonly<Record<LanguageId, Readonly<Record<string, ImportReader>>>> = {
  javascript: { import_statement: readJsImport, export_statement: readJsImport, call_expression: readRequire },
  typescript: { import_statement: readJsImport, export_statement: readJsImport, call_expression: readRequire },
  tsx: { import_statement: readJsImport, export_statement: readJsImport, call_expression: readRequire },
  python: { import_statement: readPythonImport, import_from_statement: readPythonImport },
  go: { import_spec: readGoImport },
  java: { import_declaration: readDottedImport },
  kotlin: { import_header: readDottedImport },
  csharp: { using_directive: readDottedImport },
  rust: { use_declaration: readRustUse },
  ruby: { call: readRubyRequire },
  c: { preproc_include: readInclude },
  cpp: { preproc_include: readInclude },
  php: {
    namespace_use_clause: readPhpUse,
    require_expression: readPhpUse,
    require_once_expression: readPhpUse,
    include_expression: readPhpUse,
    include_once_expression: readPhpUse,
  },
};
