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

/** The file's definitions of `name` (a method also answers to `Container.name`). */
export function definitionsNamed(outline: FileOutline, name: string): CodeSymbol[] {
  const dot = name.lastIndexOf('.');
  const container = dot > 0 ? name.slice(0, dot) : undefined;
  const own = dot > 0 ? name.slice(dot + 1) : name;
  return outline.symbols.filter((symbol) => symbol.name === own && (container === undefined || symbol.container === container));
}
