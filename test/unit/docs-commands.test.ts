import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, documentationFiles, inlineCode, parseMarkdown, REPOSITORY_ROOT, shown } from '../helpers/markdown-docs.js';

const scripts = (JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** npm's own commands, which need no script of the package. */
const NPM_BUILT_INS = new Set(['install', 'i', 'ci', 'exec', 'x', 'ls', 'outdated', 'audit', 'update', 'link']);

/** The npm commands of a shell text: `npm run <script>` or `npm <command>`, one per command. */
function npmCommands(text: string): string[][] {
  return text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .flatMap((line) => line.split(/&&|\|\||[;|]/))
    .map((command) => command.trim().split(/\s+/))
    .map((words) => words.slice(words.findIndex((word) => !/^[A-Z_][A-Z0-9_]*=/.test(word))))
    .filter((words) => words[0] === 'npm' && words.length > 1);
}

/** What is wrong with one npm command, or undefined when package.json (or npm itself) has it. */
function missingCommand(words: string[]): string | undefined {
  const [, command, script] = words;
  if (command === 'run' || command === 'run-script') {
    return script !== undefined && Object.hasOwn(scripts, script) ? undefined : `npm run ${script ?? ''}: no such script`;
  }
  if (command === undefined) return 'npm without a command';
  if (Object.hasOwn(scripts, command) || NPM_BUILT_INS.has(command)) return undefined;
  return `npm ${command}: neither a script of package.json nor an npm command`;
}

describe('the commands the documentation shows', () => {
  it.each(documentationFiles().map((file) => [shown(file), file]))('%s: every npm command exists', (_name, file) => {
    const tree = parseMarkdown(file);
    const problems = [...codeBlocks(tree), ...inlineCode(tree)].flatMap(({ value, line }) =>
      npmCommands(value)
        .map(missingCommand)
        .filter((problem) => problem !== undefined)
        .map((problem) => `line ${line}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('reads commands the way a shell would, and knows a missing one', () => {
    expect(npmCommands('npm install && npm start   # then open the page\nBENCH_DURATION=5 npm run bench webhook')).toEqual([
      ['npm', 'install'],
      ['npm', 'start'],
      ['npm', 'run', 'bench', 'webhook'],
    ]);
    expect(npmCommands('npx vitest run\n# npm run nothing')).toEqual([]);
    expect(missingCommand(['npm', 'run', 'no-such-script'])).toMatch(/no such script/);
    expect(missingCommand(['npm', 'deploy'])).toMatch(/neither/);
    expect(missingCommand(['npm', 'test'])).toBeUndefined();
    expect(missingCommand(['npm', 'ci'])).toBeUndefined();
  });
});
