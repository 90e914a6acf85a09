import { describe, expect, it } from 'vitest';
import { enclosingScope } from '../../src/code-context/find-symbols.js';
import { grammarFor } from '../../src/code-context/grammars.js';
import { languageForPath } from '../../src/code-context/language-specs.js';
import { outlineFile } from '../../src/code-context/outline-file.js';
import { diffFiles } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { generateSyntheticDiff } from '../helpers/synthetic-diff.js';
import { syntheticHeadFiles } from '../helpers/synthetic-repository.js';

/** The bench's large pull request is reviewed against these files: the diff must apply to them. */
describe('the head commit of a synthetic pull request', () => {
  const diff = generateSyntheticDiff({ files: 60, changedLines: 3_000 });
  const files = syntheticHeadFiles(diff);

  it('holds every file the diff leaves, with the new side of each hunk at its lines', () => {
    let checked = 0;
    for (const file of diffFiles(diff)) {
      if (file.status === 'deleted') {
        expect(files.has(file.path)).toBe(false);
        continue;
      }
      const content = files.get(file.path);
      expect(content, file.path).toBeDefined();
      if (file.binary) continue;
      const lines = (content as string).split('\n');
      for (const hunk of file.hunks) {
        for (const line of hunk.lines) {
          if (line.newLine === undefined) continue;
          expect(lines[line.newLine - 1], `${file.path}:${line.newLine}`).toBe(line.text);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(2_000);
  });

  it('writes each file in its language: every file with a grammar parses without an error', async () => {
    const languages = new Set<string>();
    for (const [path, content] of files) {
      const language = languageForPath(path);
      if (language === undefined || typeof content !== 'string') continue;
      const tree = (await grammarFor(language)).parser.parse(content)!;
      expect(tree.rootNode.hasError, path).toBe(false);
      tree.delete();
      languages.add(language);
    }
    expect([...languages].sort()).toEqual(['go', 'java', 'javascript', 'python', 'rust', 'tsx', 'typescript']);
  });

  it('puts a TypeScript hunk in the function its heading names', async () => {
    const file = [...diffFiles(diff)].find((entry) => entry.path.endsWith('.ts') && entry.status === 'modified' && entry.hunks.length > 1 && entry.hunks[1]!.heading !== '')!;
    const outline = await outlineFile(file.path, files.get(file.path) as string);
    if (!outline.ok) throw new Error(`no outline: ${outline.reason}`);
    const hunk = file.hunks[1]!;
    const added = hunk.lines.find((line) => line.kind === 'add')!;
    expect(enclosingScope(outline.outline, added.newLine!, added.newLine!)?.name).toBe(/function\s+(\w+)/.exec(hunk.heading)![1]);
  });
});
