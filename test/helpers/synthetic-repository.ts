import { diffFiles } from '../../src/review/prepare/diff/parse-unified-diff.js';
import type { DiffHunk } from '../../src/review/prepare/diff/diff-types.js';

/**
 * The head commit a diff applies to, for the tests and the benchmark (not used by the service):
 * every file the diff leaves at the head, with the diff's new side at its line numbers (the
 * synthetic diff writes each file's lines in its language) and the lines between hunks filled with
 * code of the file's language, so that each hunk sits in a
 * function named by its heading (git's heading is the enclosing function) and the names the hunk
 * calls are defined in the gaps. Deleted files are absent; binary files hold a few bytes.
 */
export function syntheticHeadFiles(diff: string): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  for (const file of diffFiles(diff)) {
    if (file.status === 'deleted') continue;
    if (file.binary) files.set(file.path, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    else files.set(file.path, headContent(file.path, file.hunks));
  }
  return files;
}

interface Syntax {
  /** The line that opens a function of that name right above a hunk. */
  open(name: string, heading: string): string;
  /** The line that closes it after the hunk ('' where indentation does). */
  close: string;
  /** A small function of that name, defining what a hunk calls. */
  helper(name: string, seed: number): string[];
  /** The file's first and last lines, around its functions (Java's class). */
  wrap?: [string, string];
}

const BRACES = (open: (name: string) => string, helper: (name: string, seed: number) => string[]): Syntax => ({ open, close: '}', helper });

const TYPESCRIPT: Syntax = {
  // Git's heading is the function line itself: it is kept as written.
  open: (name, heading) => (heading.startsWith('export ') ? `${heading} {` : `export async function ${name}(input: Input) {`),
  close: '}',
  helper: (name, seed) => [`export function ${name}(value: number): number {`, `  return value * ${seed} + ${seed % 7};`, '}'],
};

const JAVASCRIPT: Syntax = {
  open: (name) => `export async function ${name}(input) {`,
  close: '}',
  helper: (name, seed) => [`export function ${name}(value) {`, `  return value * ${seed} + ${seed % 7};`, '}'],
};

const SYNTAX: Record<string, Syntax> = {
  ts: TYPESCRIPT,
  tsx: TYPESCRIPT,
  js: JAVASCRIPT,
  go: BRACES((name) => `func ${name}(input Input) {`, (name, seed) => [`func ${name}(value int) int {`, `\treturn value*${seed} + ${seed % 7}`, '}']),
  rs: BRACES((name) => `pub async fn ${name}(input: Input) {`, (name, seed) => [`pub fn ${name}(value: i64) -> i64 {`, `    value * ${seed} + ${seed % 7}`, '}']),
  java: { ...BRACES((name) => `  public void ${name}(Input input) {`, (name, seed) => [`  static int ${name}(int value) {`, `    return value * ${seed} + ${seed % 7};`, '  }']), wrap: ['public class Synthetic {', '}'] },
  py: { open: (name) => `def ${name}(input):`, close: '', helper: (name, seed) => [`def ${name}(value):`, `    return value * ${seed} + ${seed % 7}`] },
};

/** Lock files, YAML, snapshots: no functions, plain lines. */
const PLAIN: Syntax = { open: () => '', close: '', helper: (name, seed) => [`${name}: ${seed}`] };

function headContent(path: string, hunks: DiffHunk[]): string {
  const syntax = SYNTAX[path.slice(path.lastIndexOf('.') + 1)] ?? PLAIN;
  const lines: string[] = syntax.wrap ? [syntax.wrap[0]] : [];
  let inFunction = false;
  let seed = path.length;
  /** Fills the lines before line `until` (1-based): closes the function open, defines what the next hunk calls, opens its function. */
  const fill = (until: number, next: DiffHunk | undefined) => {
    const room = Math.max(0, until - 1 - lines.length);
    const closing = inFunction && syntax.close !== '' ? [syntax.close] : [];
    const open = next ? syntax.open(functionName(next.heading, seed), next.heading) : '';
    const opening = open === '' ? [] : [open];
    if (room >= closing.length + opening.length) {
      const helper = next ? syntax.helper(calledName(next) ?? `helper${seed}`, seed) : [];
      const middle = room - closing.length - opening.length >= helper.length + 2 ? ['', ...helper, ''] : [];
      // The rest of the gap is code too (more small functions), as a real file's would be.
      const filler: string[] = [];
      for (let more = 1; middle.length > 0 && room - closing.length - opening.length - middle.length - filler.length > helper.length + 1; more++) filler.push(...syntax.helper(`${calledName(next!) ?? 'helper'}${seed}_${more}`, seed + more), '');
      const pad = room - closing.length - opening.length - middle.length - filler.length;
      lines.push(...closing, ...middle, ...filler, ...new Array<string>(pad).fill(''), ...opening);
      inFunction = opening.length > 0;
    } else {
      // No room for a function of its own: the hunk stays in the previous one.
      lines.push(...new Array<string>(room).fill(''));
    }
    seed++;
  };
  for (const hunk of hunks) {
    fill(hunk.newStart, hunk);
    for (const line of hunk.lines) if (line.newLine !== undefined) lines[line.newLine - 1] = line.text;
  }
  fill(lines.length + 2, undefined);
  if (syntax.wrap) lines.push(syntax.wrap[1]);
  return lines.join('\n') + '\n';
}

function functionName(heading: string, seed: number): string {
  return /function\s+(\w+)/.exec(heading)?.[1] ?? `section${seed}`;
}

/** The first method the hunk's new side calls (`x.name(`), which the gap before it then defines. */
function calledName(hunk: DiffHunk): string | undefined {
  for (const line of hunk.lines) {
    if (line.kind === 'del') continue;
    const call = /\.(\w+)\(/.exec(line.text);
    if (call && call[1] !== 'map') return call[1];
  }
  return undefined;
}
