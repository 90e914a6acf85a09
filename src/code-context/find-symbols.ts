import type { CodeSymbol, FileOutline } from './outline-types.js';

/** The symbols containing lines `startLine`–`endLine`, innermost first. */
export function enclosingSymbols(outline: FileOutline, startLine: number, endLine: number): CodeSymbol[] {
  return outline.symbols
    .filter((symbol) => symbol.startLine <= startLine && symbol.endLine >= endLine)
    .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
}

/** The innermost function, method or class around the lines, skipping nameless callbacks. */
export function enclosingScope(outline: FileOutline, startLine: number, endLine: number): CodeSymbol | undefined {
  return enclosingSymbols(outline, startLine, endLine).find((symbol) => symbol.name !== '');
}

/** The names a definition answers to: its name and its aliases (`header` of `req.get = req.header = function`). */
export function namesOf(symbol: CodeSymbol): readonly string[] {
  return symbol.aliases ? [symbol.name, ...symbol.aliases] : [symbol.name];
}

/** The file's definitions of `name` (a method also answers to `Container.name`). */
export function definitionsNamed(outline: FileOutline, name: string): CodeSymbol[] {
  const dot = name.lastIndexOf('.');
  const container = dot > 0 ? name.slice(0, dot) : undefined;
  const own = dot > 0 ? name.slice(dot + 1) : name;
  return outline.symbols.filter((symbol) => (symbol.name === own || symbol.aliases?.includes(own) === true) && (container === undefined || symbol.container === container));
}

/**
 * Whether a definition sits on the object a call names (`req.get` for `req.get()`, `View.render`
 * for `view.render()`, `module.exports.x` for `exports.x()`): the container's last name, in any case.
 */
export function onReceiver(symbol: CodeSymbol, receiver: string | undefined): boolean {
  if (receiver === undefined || symbol.container === undefined) return false;
  const container = symbol.container.slice(symbol.container.lastIndexOf('.') + 1);
  return container.toLowerCase() === receiver.toLowerCase();
}

/** The definitions on one of the receivers first, in their order otherwise. */
export function receiversFirst<T extends { symbol: CodeSymbol }>(found: readonly T[], receivers: ReadonlySet<string>): T[] {
  if (receivers.size === 0) return [...found];
  const matches = (entry: T) => [...receivers].some((receiver) => onReceiver(entry.symbol, receiver));
  return [...found.filter(matches), ...found.filter((entry) => !matches(entry))];
}
