import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCompareArgs } from '../../bench/compare/compare-args.js';
import { figureRatio, median, ratioTable } from '../../bench/compare/ratios.js';
import { unrunnable } from '../../bench/compare/revision-tree.js';

const KNOWN = ['drain', 'drain-after-drafts', 'chat'];

describe('bench:compare arguments', () => {
  it('a revision and the scenarios named, every scenario when none is, 3 rounds by default', () => {
    expect(parseCompareArgs(['1d6182f', 'drain'], KNOWN)).toEqual({ revision: '1d6182f', scenarios: ['drain'], rounds: 3 });
    expect(parseCompareArgs(['main'], KNOWN)).toEqual({ revision: 'main', scenarios: KNOWN, rounds: 3 });
    expect(parseCompareArgs(['main', '--rounds', '5', 'chat', 'chat'], KNOWN)).toEqual({ revision: 'main', scenarios: ['chat'], rounds: 5 });
    expect(parseCompareArgs(['--rounds=4', 'HEAD~2'], KNOWN).rounds).toBe(4);
  });

  it('refuses a missing revision, an unknown scenario or option, and fewer than 3 rounds', () => {
    expect(() => parseCompareArgs([], KNOWN)).toThrow(/Usage: npm run bench:compare/);
    expect(() => parseCompareArgs(['main', 'drian'], KNOWN)).toThrow('Unknown scenario: drian. Scenarios: drain, drain-after-drafts, chat');
    expect(() => parseCompareArgs(['main', '--fast'], KNOWN)).toThrow('Unknown option --fast');
    expect(() => parseCompareArgs(['main', '--rounds', '2'], KNOWN)).toThrow(/at least 3/);
    expect(() => parseCompareArgs(['main', '--rounds'], KNOWN)).toThrow(/at least 3/);
  });
});

describe('bench:compare ratios', () => {
  it('medians of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('the ratio of the medians, with the lowest and highest ratio of a round', () => {
    // Rounds: 10 → 5 (0.5), 12 → 9 (0.75), 20 → 8 (0.4).
    expect(figureRatio({ then: [10, 12, 20], today: [5, 9, 8] })).toEqual({ then: 12, today: 8, ratio: 8 / 12, low: 0.4, high: 0.75 });
    const zero = figureRatio({ then: [0, 0, 0], today: [1, 2, 3] });
    expect(zero.ratio).toBeNaN();
    expect(zero.low).toBeNaN();
  });

  it('prints one aligned row a figure', () => {
    const table = ratioTable([{ scenario: 'drain', figure: 'drain s', samples: { then: [15.5, 16, 15], today: [14, 15, 16] } }]);
    expect(table.split('\n')).toHaveLength(2);
    expect(table).toContain('| drain    | drain s | 15.5');
    expect(table).toMatch(/\| 0\.97 +\| 0\.90–1\.07 +\|$/);
  });
});

describe('bench:compare cached revision trees', () => {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));
  const tree = async () => {
    const root = await mkdtemp(join(tmpdir(), 'bench-compare-test-'));
    made.push(root);
    return root;
  };

  it('runs where tsx and every dependency of its package.json resolve', async () => {
    const root = await tree();
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src', 'server.ts'), '');
    await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module', dependencies: { tsx: '*' } }));
    await mkdir(join(root, 'node_modules'));
    await symlink(fileURLToPath(new URL('../../node_modules/tsx', import.meta.url)), join(root, 'node_modules', 'tsx'), 'dir');
    expect(await unrunnable(root)).toBeUndefined();
  });

  it('is refused without its entry point, with a symlinked node_modules, or where tsx does not resolve', async () => {
    const empty = await tree();
    expect(await unrunnable(empty)).toBe('no src/server.ts');

    const linked = await tree();
    await mkdir(join(linked, 'src'));
    await writeFile(join(linked, 'src', 'server.ts'), '');
    // The case that broke a run: a link to a work tree's node_modules, since deleted.
    await symlink(join(linked, 'deleted-work-tree', 'node_modules'), join(linked, 'node_modules'), 'dir');
    expect(await unrunnable(linked)).toBe('node_modules is a symbolic link');

    const bare = await tree();
    await mkdir(join(bare, 'src'));
    await writeFile(join(bare, 'src', 'server.ts'), '');
    await writeFile(join(bare, 'package.json'), JSON.stringify({ type: 'module', dependencies: { fastify: '^5' } }));
    await mkdir(join(bare, 'node_modules'));
    expect(await unrunnable(bare)).toMatch(/Cannot find package 'tsx'/);

    // tsx there (linked to this tree's), a dependency of its package.json not.
    await symlink(fileURLToPath(new URL('../../node_modules/tsx', import.meta.url)), join(bare, 'node_modules', 'tsx'), 'dir');
    expect(await unrunnable(bare)).toBe('unresolved: fastify');
  });
});

