import picomatch from 'picomatch';
import type { PathInstruction } from './repository-config-schema.js';

/**
 * A matcher for a list of globs (undefined when the list is empty). A glob without a slash matches
 * the file name anywhere (`*.md`), as in `.gitignore`; dotfiles are matched like other files.
 */
export function globMatcher(globs: readonly string[]): ((path: string) => boolean) | undefined {
  if (globs.length === 0) return undefined;
  const matchers = globs.map((glob) => picomatch(glob, { dot: true, basename: !glob.includes('/') }));
  return (path) => matchers.some((matches) => matches(path));
}

/** Picks, for a set of files, the texts of the instructions whose glob matches one of them. */
export function instructionMatcher(instructions: readonly PathInstruction[]): (paths: readonly string[]) => string[] {
  const compiled = instructions.map((instruction) => ({ text: instruction.text, matches: globMatcher([instruction.path])! }));
  return (paths) => compiled.filter((instruction) => paths.some((path) => instruction.matches(path))).map((instruction) => instruction.text);
}
