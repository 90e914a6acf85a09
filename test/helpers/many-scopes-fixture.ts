/**
 * A pull request whose enclosing scopes exceed one chunk's room (decisions.md §11's splitting): `files`
 * JavaScript modules, each one function of `functionLines` lines, changed near its top and its
 * bottom (two hunks, so the diff alone never shows the whole function).
 */
export function manyScopesCommits(files = 20, functionLines = 100): [Record<string, string>, Record<string, string>] {
  const before: Record<string, string> = {};
  const after: Record<string, string> = {};
  for (let file = 0; file < files; file++) {
    const body = Array.from({ length: functionLines - 2 }, (_, line) => `  const step${line} = combine(step${line - 1}, ${file * 1000 + line}, 'stage ${line} of module ${file}');`);
    body[0] = `  const step0 = Number(input) || 0;`;
    const source = (lines: string[]) => `'use strict';\n\nfunction handle${file}(input) {\n${lines.join('\n')}\n}\n\nmodule.exports = handle${file};\n`;
    before[`lib/module-${file}.js`] = source(body);
    const changed = [...body];
    changed[3] = `  const step3 = combine(step2, ${file}, 'changed near the top');`;
    changed[functionLines - 6] = `  const step${functionLines - 6} = combine(step${functionLines - 7}, ${file}, 'changed near the bottom');`;
    after[`lib/module-${file}.js`] = source(changed);
  }
  return [before, after];
}

/** The function of a module of `manyScopesCommits`: lines 3 to 2 + `functionLines`. */
export const MANY_SCOPES_FUNCTION_START = 3;
