import { describe, expect, it } from 'vitest';
import { BaseScopes } from '../../src/code-context/base-scopes.js';
import type { ContextBlock } from '../../src/code-context/context-block.js';
import type { SnapshotSource } from '../../src/code-context/snapshot/snapshot-source.js';

const BASE = ['def keep(a):', '    return a', '', '', 'def gone(b):', '    """Removed by the change."""', '    return b * 2', ''].join('\n');

/** The code host's single-file read at one commit, counting the reads. */
function source(files: Record<string, string>) {
  const reads: string[] = [];
  const host: SnapshotSource = {
    host: 'code.example',
    repository: 'o/r',
    reader: 'test',
    refuses: () => false,
    archive: () => Promise.reject(new Error('no archive for the base')),
    listFiles: () => Promise.reject(new Error('no listing for the base')),
    readFile: (_commit, path) => {
      reads.push(path);
      return Promise.resolve(files[path] ?? null);
    },
  };
  return { host, reads };
}

const removed = (path: string, lines: Array<[number, string]>) => ({ path, lines: new Map(lines) });

describe('scopes at the base commit for hunks that only remove lines (decisions.md §11)', () => {
  it('a function removed whole is shown as it was, labelled as the base; each file read once', async () => {
    const { host, reads } = source({ 'm.py': BASE });
    const base = new BaseScopes(host, 'abcdef1234567890');
    const lines: Array<[number, string]> = [[4, ''], [5, 'def gone(b):'], [6, '    """Removed by the change."""'], [7, '    return b * 2']];
    const blocks = await base.blocks([removed('m.py', lines)], []);
    expect(blocks.map(({ path, startLine, endLine, label }) => ({ path, startLine, endLine, label }))).toEqual([
      { path: 'm.py', startLine: 5, endLine: 7, label: 'enclosing function gone, at the base commit abcdef123456 (before the change)' },
    ]);
    expect(blocks[0]!.variants[0]).toContain('5 def gone(b):');
    await base.blocks([removed('m.py', lines)], []);
    expect(reads).toEqual(['m.py']);
  });

  it('nothing when the head already shows that scope, when the base lines differ from the removed ones, or the file is missing', async () => {
    const { host } = source({ 'm.py': BASE });
    const base = new BaseScopes(host, 'abcdef1234567890');
    const atHead: ContextBlock[] = [{ kind: 'scope', path: 'm.py', startLine: 1, endLine: 2, label: 'enclosing function keep', variants: [''] }];
    expect(await base.blocks([removed('m.py', [[2, '    return a']])], atHead)).toEqual([]);
    // The diff's old side is another commit (a moved merge base): no scope rather than a wrong one.
    expect(await base.blocks([removed('m.py', [[7, '    return b * 3']])], [])).toEqual([]);
    expect(await base.blocks([removed('missing.py', [[1, 'x = 1']])], [])).toEqual([]);
  });
});
