import type { Node, Tree } from 'web-tree-sitter';
import type { Grammar, OutlineCapture } from './grammars.js';
import { LANGUAGE_SPECS } from './language-specs.js';
import type { CodeReference, CodeSymbol, FileOutline, LanguageId } from './outline-types.js';
import { IMPORT_READERS } from './read-imports.js';

/** Raised when the walk passes its deadline; `outlineFile` turns it into a `timed out` skip. */
export class OutlineDeadlineError extends Error {}

/**
 * Nodes that wrap a definition and belong to it: `export function`, `@decorator def`, the
 * `const f =` of an arrow function, `View.prototype.x = function`, a Go `type X struct` of one spec,
 * a C++ template.
 */
const WRAPPERS = new Set([
  'export_statement',
  'decorated_definition',
  'lexical_declaration',
  'variable_declaration',
  'variable_declarator',
  'assignment_expression',
  'expression_statement',
  'type_declaration',
  'template_declaration',
  'public_field_definition',
  'field_definition',
  'pair',
]);

/** Fields that name what a wrapper binds a function or class to. */
const BINDING_FIELDS = ['name', 'left', 'key', 'property'];
/** Keys of a property descriptor given to `Object.defineProperty`. */
const ACCESSOR_KEYS = new Set(['get', 'set', 'value']);

const NAME_LEAVES = new Set([
  'identifier',
  'type_identifier',
  'field_identifier',
  'property_identifier',
  'simple_identifier',
  'constant',
  'name',
  'destructor_name',
  'operator_name',
  'namespace_identifier',
  'shorthand_property_identifier',
  'private_property_identifier',
]);
const SPECIFIERS = new Set(['struct_specifier', 'enum_specifier', 'union_specifier']);
const CALLEE_FIELDS = ['name', 'property', 'field', 'attribute', 'method'];
/** Where a call's object is: on its callee (`a.b` in JavaScript, Python, Go) or on the call (Java, PHP, Ruby). */
const RECEIVER_FIELDS = ['object', 'operand', 'receiver'];
/** A method called on these is called on the container of the function the call is in. */
const SELF_NAMES = new Set(['this', 'self', '$this']);
const BODY_TYPES = new Set([
  'block',
  'statement_block',
  'class_body',
  'function_body',
  'declaration_list',
  'compound_statement',
  'field_declaration_list',
  'enum_variant_list',
  'body_statement',
  'enum_body',
  'interface_body',
  'enum_class_body',
  'object_type',
]);
/** Ruby names may end in `?` or `!`, Rust macros in `!`. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*[?!]?$/;
const DEADLINE_CHECK_EVERY = 256;

/** The outline of a parsed file, from the captures of the language's outline query, in document order. */
export function extractOutline(tree: Tree, grammar: Grammar, language: LanguageId, lines: readonly string[], deadline: number): FileOutline {
  const spec = LANGUAGE_SPECS[language];
  const importReaders = IMPORT_READERS[language];
  const outline: FileOutline = { language, lineCount: lines.length, symbols: [], imports: [], references: [] };
  const isBlank = (line: number) => lines[line - 1]?.trim() === '';
  const commentRanges: Array<[number, number]> = [];
  const open: Array<{ symbol: CodeSymbol; endIndex: number }> = [];
  const seenReferences = new Set<string>();
  // Returning true from the progress callback stops the query; the captures then end early.
  let late = false;
  const captures = grammar.query.captures(tree.rootNode, { progressCallback: () => (late = performance.now() > deadline) });
  if (late) throw new OutlineDeadlineError();
  for (let index = 0; index < captures.length; index++) {
    if (index % DEADLINE_CHECK_EVERY === 0 && performance.now() > deadline) throw new OutlineDeadlineError();
    const { node, name: capture } = captures[index]!;
    const line = node.startPosition.row + 1;
    switch (capture as OutlineCapture) {
      case 'comment':
        commentRanges.push([line, node.endPosition.row + 1]);
        break;
      case 'type':
        addReference(outline.references, seenReferences, node.text, line, 'type');
        break;
      case 'import':
        outline.imports.push(...importReaders[node.type]!(node));
        break;
      case 'call': {
        const field = spec.calls[node.type];
        const callee = field === null || field === undefined ? node.firstNamedChild : node.childForFieldName(field);
        const name = calleeName(callee);
        if (!name) break;
        while (open.length > 0 && open.at(-1)!.endIndex <= node.startIndex) open.pop();
        addReference(outline.references, seenReferences, name, line, 'call', receiverOf(node, callee, open));
        break;
      }
      case 'symbol': {
        while (open.length > 0 && open.at(-1)!.endIndex <= node.startIndex) open.pop();
        const symbol = readSymbol(node, spec.symbols[node.type]!, language, open.at(-1)?.symbol, commentAbove(commentRanges, isBlank));
        if (symbol) {
          outline.symbols.push(symbol);
          open.push({ symbol, endIndex: node.endIndex });
        }
        break;
      }
    }
  }
  return outline;
}

function addReference(references: CodeReference[], seen: Set<string>, name: string, line: number, kind: CodeReference['kind'], receiver?: string): void {
  if (!IDENTIFIER.test(name) || name.length > 100) return;
  const key = `${line}:${kind}:${name}`;
  if (seen.has(key)) return;
  seen.add(key);
  references.push(receiver === undefined ? { name, line, kind } : { name, line, kind, receiver });
}

/**
 * The object a method is called on, by its last name (`req` of `req.get()`, `app` of
 * `this.app.get()`); `this`/`self` is the container of the function around the call (`res` in
 * `res.send = function () { this.set() }`, the class in a method).
 */
function receiverOf(call: Node, callee: Node | null, open: ReadonlyArray<{ symbol: CodeSymbol }>): string | undefined {
  let object: Node | null = null;
  for (const field of RECEIVER_FIELDS) {
    object = callee?.childForFieldName(field) ?? call.childForFieldName(field);
    if (object) break;
  }
  const name = object ? calleeName(object) : undefined;
  if (name === undefined || !SELF_NAMES.has(name)) return name;
  for (let at = open.length - 1; at >= 0; at--) if (open[at]!.symbol.container) return open[at]!.symbol.container;
  return undefined;
}

function readSymbol(node: Node, kind: CodeSymbol['kind'], language: LanguageId, parent: CodeSymbol | undefined, docAbove: (startLine: number) => [number, number] | undefined): CodeSymbol | undefined {
  let qualifier: string | undefined;
  const own = ownName(node, (scope) => (qualifier = scope));
  // A struct mentioned without a body (`struct list *l;`) is a use; a nameless one is its typedef's.
  if (SPECIFIERS.has(node.type) && (!node.childForFieldName('body') || !own)) return undefined;
  const bindings: Binding[] = [];
  let outer = node;
  while (outer.parent && WRAPPERS.has(outer.parent.type) && !(outer.parent.type === 'type_declaration' && outer.parent.namedChildren.length > 1)) {
    outer = outer.parent;
    const binding = bindingOf(outer);
    if (binding) bindings.push(binding);
  }
  // Callers use the name it is bound to, the first one written (`get` of `req.get = req.header =
  // function header`); its own name and the other targets are aliases.
  const bound = bindings.at(-1);
  const name = bound?.name ?? own;
  qualifier ??= bound?.container;
  const aliases = [...new Set([...bindings.map((binding) => binding.name), own])].filter((alias): alias is string => alias !== undefined && alias !== name);
  // Rust attributes (`#[cold]`) are siblings before the item; doc comments sit above them.
  let start = outer;
  while (start.previousNamedSibling?.type === 'attribute_item' && start.previousNamedSibling.endPosition.row >= start.startPosition.row - 1) {
    start = start.previousNamedSibling;
  }
  const startLine = start.startPosition.row + 1;
  const endLine = node.endPosition.row + 1;
  const body = bodyOf(node);
  let beforeBody = body?.previousSibling;
  while (beforeBody && LANGUAGE_SPECS[language].comments.includes(beforeBody.type)) beforeBody = beforeBody.previousSibling;
  const headerEndLine = body ? Math.max(startLine, (beforeBody ?? body).endPosition.row + 1) : endLine;
  const symbol: CodeSymbol = {
    name: name ?? '',
    kind: kind === 'function' && parent && (parent.kind === 'class' || parent.kind === 'type') ? 'method' : kind,
    startLine,
    endLine,
    headerEndLine: Math.min(headerEndLine, endLine),
  };
  const container = qualifier ?? goReceiver(node) ?? (parent && parent.kind !== 'function' && parent.kind !== 'method' ? parent.name : undefined);
  if (container) symbol.container = container;
  if (aliases.length > 0) symbol.aliases = aliases;
  const doc = language === 'python' ? pythonDocstring(body) : undefined;
  const [docStart, docEnd] = doc ?? docAbove(startLine) ?? [];
  if (docStart !== undefined && docEnd !== undefined) {
    symbol.docStartLine = docStart;
    symbol.docEndLine = docEnd;
  }
  return symbol;
}

/** The name a definition gives itself; `onQualifier` receives `Arena` of C++'s `Arena::Allocate`. */
function ownName(node: Node, onQualifier: (scope: string) => void): string | undefined {
  const named = node.childForFieldName('name');
  if (named) return leafName(named);
  // Rust `impl Trait for Type`: the type is what the methods belong to.
  const implemented = node.type === 'impl_item' ? node.childForFieldName('type') : null;
  if (implemented) return leafName(implemented);
  let declarator = node.childForFieldName('declarator');
  for (let depth = 0; declarator && depth < 8; depth++) {
    if (declarator.type === 'qualified_identifier') {
      const scope = declarator.childForFieldName('scope');
      if (scope) onQualifier(scope.text);
      declarator = declarator.childForFieldName('name');
    } else if (NAME_LEAVES.has(declarator.type)) {
      return declarator.text;
    } else {
      declarator = declarator.childForFieldName('declarator') ?? declarator.firstNamedChild;
    }
  }
  // Kotlin puts the name in an unnamed child.
  for (const child of node.namedChildren) if (child && (child.type === 'simple_identifier' || child.type === 'type_identifier')) return child.text;
  return undefined;
}

/** `authPairs` of Go's `func (a authPairs) search()`. */
function goReceiver(node: Node): string | undefined {
  if (node.type !== 'method_declaration') return undefined;
  const receiver = node.childForFieldName('receiver');
  return receiver?.descendantsOfType('type_identifier')[0]?.text;
}

interface Binding {
  name: string;
  container?: string;
}

/**
 * What a wrapper binds a definition to: `f` of `const f = () => …` and `{f: function}`; `get` on
 * `req` of `req.get = function`, on `View` of `View.prototype.get = function`, on `exports` of
 * `exports.get = function`. None for `module.exports = function` (the module, not a name callers
 * use) or `app[method] = function` (a name known only when the program runs).
 */
function bindingOf(wrapper: Node): Binding | undefined {
  for (const field of BINDING_FIELDS) {
    const target = wrapper.childForFieldName(field);
    if (!target) continue;
    if (target.type !== 'member_expression' && target.type !== 'subscript_expression') {
      const name = leafName(target);
      // `Object.defineProperty(o, 'router', {get: function getrouter() {…}})`: an accessor of the
      // property, not a method called `get`.
      if (!name || (wrapper.type === 'pair' && ACCESSOR_KEYS.has(name) && wrapper.parent?.parent?.type === 'arguments')) return undefined;
      return { name };
    }
    const key = target.childForFieldName(target.type === 'member_expression' ? 'property' : 'index');
    const name = key?.type === 'string' ? cleanName(key.text.slice(1, -1)) : key && NAME_LEAVES.has(key.type) && target.type === 'member_expression' ? cleanName(key.text) : undefined;
    const object = target.childForFieldName('object');
    const container = object ? objectPath(object) : undefined;
    if (!name || (name === 'exports' && container === 'module')) return undefined;
    return container ? { name, container } : { name };
  }
  return undefined;
}

/** `req`, `module.exports`; `View` of `View.prototype`; undefined for `this` (the class around it says) or a computed object. */
function objectPath(node: Node): string | undefined {
  if (node.type === 'identifier') return node.text;
  if (node.type !== 'member_expression') return undefined;
  const object = node.childForFieldName('object');
  const property = node.childForFieldName('property');
  const path = object ? objectPath(object) : undefined;
  if (!path || property?.type !== 'property_identifier') return undefined;
  return property.text === 'prototype' ? path : `${path}.${property.text}`;
}

function leafName(node: Node): string | undefined {
  let current: Node | null = node;
  for (let depth = 0; current && depth < 8; depth++) {
    if (NAME_LEAVES.has(current.type) || current.childCount === 0) return cleanName(current.text);
    const next: Node | null = CALLEE_FIELDS.map((field) => current!.childForFieldName(field)).find(Boolean) ?? current.childForFieldName('type') ?? current.firstNamedChild;
    current = next;
  }
  return undefined;
}

/** The called name: `b` of `a.b()`, `a::b()`, `$a->b()`, `new B()`; `undefined` for `f()()`. */
function calleeName(callee: Node | null): string | undefined {
  let current = callee;
  for (let depth = 0; current && depth < 8; depth++) {
    if (NAME_LEAVES.has(current.type) || current.childCount === 0) return cleanName(current.text);
    if (current.type === 'call_expression' || current.type === 'call') return undefined;
    const field: Node | null | undefined = CALLEE_FIELDS.map((name) => current!.childForFieldName(name)).find(Boolean);
    current = field ?? (current.type === 'navigation_expression' || current.type === 'navigation_suffix' || current.type === 'qualified_name' ? current.lastNamedChild : current.firstNamedChild);
  }
  return undefined;
}

function cleanName(text: string): string | undefined {
  const name = text.slice(Math.max(text.lastIndexOf('\\'), text.lastIndexOf(':')) + 1).trim();
  return IDENTIFIER.test(name) ? name : undefined;
}

function bodyOf(node: Node): Node | null {
  const body = node.childForFieldName('body');
  if (body) return body;
  for (const child of node.namedChildren) if (child && BODY_TYPES.has(child.type)) return child;
  return null;
}

function pythonDocstring(body: Node | null): [number, number] | undefined {
  const first = body?.firstNamedChild;
  const value = first?.type === 'expression_statement' ? first.firstNamedChild : null;
  return value?.type === 'string' ? [value.startPosition.row + 1, value.endPosition.row + 1] : undefined;
}

/**
 * The doc comment of a definition starting at `startLine`: the run of comments ending on the line
 * above it, or two lines above with a blank line between (the style of many JavaScript projects).
 */
function commentAbove(ranges: ReadonlyArray<[number, number]>, isBlank: (line: number) => boolean): (startLine: number) => [number, number] | undefined {
  return (startLine) => {
    let index = ranges.length - 1;
    while (index >= 0 && ranges[index]![1] >= startLine) index--;
    const end = index >= 0 ? ranges[index]![1] : -1;
    if (end !== startLine - 1 && !(end === startLine - 2 && isBlank(startLine - 1))) return undefined;
    let start = ranges[index]![0];
    while (index > 0 && ranges[index - 1]![1] >= start - 1 && ranges[index - 1]![1] < start) start = ranges[--index]![0];
    return [start, end];
  };
}
