import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/code-context/code-index.js';
import { findDefinitionAnswer } from '../../src/code-context/code-tools.js';
import type { ContextBlock } from '../../src/code-context/context-block.js';
import { gatherChunkContext } from '../../src/code-context/gather-context.js';
import { outlineFile } from '../../src/code-context/outline-file.js';
import { RepositorySnapshot } from '../../src/code-context/snapshot/repository-snapshot.js';
import { fitContext } from '../../src/review/ask/context-section.js';
import { countTokens } from '../../src/review/prepare/tokens.js';

const FIXTURES = new URL('../fixtures/code-context/languages/', import.meta.url);
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** A whole (`tarball`) snapshot of `files`, on disk as the cache holds it. */
function snapshotOf(files: Record<string, string | Buffer>): CodeIndex {
  const folder = mkdtempSync(join(tmpdir(), 'gather-'));
  folders.push(folder);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  const listed = Object.entries(files).map(([path, content]) => ({ path, size: Buffer.byteLength(content) }));
  return new CodeIndex(new RepositorySnapshot('tarball', 'c0ffee0', folder, listed, undefined), { maxIndexedFiles: 5_000, indexTimeMs: 60_000 });
}

const FULL = { definitions: true, callers: false };
const labels = (blocks: readonly ContextBlock[]) => blocks.map((block) => `${block.kind} ${block.path}:${block.startLine}-${block.endLine} ${block.label}`);

describe('the enclosing scope of a change, on real files of each language', () => {
  const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith('.txt'));

  it.each(fixtures)('%s: the innermost function around a changed line, whole and numbered as in the file', async (fixture) => {
    const path = `src/${fixture.replace(/\.txt$/, '')}`;
    const text = readFileSync(new URL(fixture, FIXTURES), 'utf8');
    const result = await outlineFile(path, text, { maxBytes: 1 << 20, maxLineLength: 10_000, timeoutMs: 60_000 });
    if (!result.ok) throw new Error(result.reason);
    // A function or method of a reviewable size, changed in its middle.
    const target = result.outline.symbols.find((symbol) => (symbol.kind === 'function' || symbol.kind === 'method') && symbol.name && symbol.endLine - symbol.startLine >= 2 && symbol.endLine - symbol.startLine <= 80);
    expect(target, fixture).toBeDefined();
    const changed = Math.floor((target!.headerEndLine + target!.endLine) / 2) + 1;
    const blocks = await gatherChunkContext(snapshotOf({ [path]: text }), [{ path, lines: [changed] }], { definitions: false, callers: false });
    const scope = blocks.find((block) => block.kind === 'scope' && block.endLine === target!.endLine);
    expect(scope?.label, fixture).toContain(target!.name);
    const lines = text.split('\n');
    expect(scope!.variants[0]).toContain(`${target!.startLine} ${lines[target!.startLine - 1]}\n`);
    expect(scope!.variants[0]).toContain(`${changed} ${lines[changed - 1]}\n`);
    expect(scope!.variants[0]).toContain(`${target!.endLine} ${lines[target!.endLine - 1]}\n`);
  });
});

describe('the scope of a change inside callbacks', () => {
  it('a test inside a long describe: the `it` callback, not the 200-line wrapper', async () => {
    const filler = Array.from({ length: 190 }, (_, line) => `  it('case ${line}', function () { assert(${line}) })`);
    const source = ["describe('router', function () {", ...filler, "  it('matches', function () {", '    var app = express()', '    assert(app)', '  })', '})', ''].join('\n');
    const blocks = await gatherChunkContext(snapshotOf({ 'test/router.js': source }), [{ path: 'test/router.js', lines: [193] }], FULL);
    expect(labels(blocks)).toEqual(['scope test/router.js:192-195 enclosing function (anonymous)']);
  });
});

describe('definitions of what the changed lines use', () => {
  it('Python: through a relative import, with the docstring and short body; a name defined nowhere is skipped', async () => {
    const index = snapshotOf({
      'shop/cart.py': 'from .pricing import tax_for\n\n\ndef total(items, region):\n    subtotal = sum(item.price for item in items)\n    return subtotal + tax_for(region, subtotal)\n',
      'shop/pricing.py': 'RATES = {"eu": 0.2}\n\n\ndef tax_for(region, amount):\n    """The tax due on an amount in a region."""\n    return amount * RATES[region]\n',
      'other/pricing.py': 'def tax_for(x):\n    return 0\n',
    });
    const blocks = await gatherChunkContext(index, [{ path: 'shop/cart.py', lines: [6] }], FULL);
    expect(labels(blocks)).toEqual(['scope shop/cart.py:4-6 enclosing function total', 'definition shop/pricing.py:4-6 definition of tax_for']);
    expect(blocks[1]!.variants[0]).toBe('4 def tax_for(region, amount):\n5     """The tax due on an amount in a region."""\n6     return amount * RATES[region]\n');
  });

  it('TypeScript: a NodeNext `.js` import of a `.ts` file; a type named on the line; JSDoc kept', async () => {
    const index = snapshotOf({
      'src/user.ts': "import { findUser, type UserRow } from './db.js';\n\nexport async function loadUser(id: string): Promise<UserRow | null> {\n  const row: UserRow | undefined = await findUser(id);\n  return row ?? null;\n}\n",
      'src/db.ts': '/** A user as stored. */\nexport interface UserRow {\n  id: string;\n}\n\n/** Reads one user by id. */\nexport async function findUser(id: string): Promise<UserRow | undefined> {\n  return undefined;\n}\n',
    });
    const blocks = await gatherChunkContext(index, [{ path: 'src/user.ts', lines: [4] }], FULL);
    expect(labels(blocks)).toEqual(
      expect.arrayContaining(['scope src/user.ts:3-6 enclosing function loadUser', 'definition src/db.ts:6-9 definition of findUser', 'definition src/db.ts:1-4 definition of UserRow']),
    );
  });

  it('Go: a package by its import path; without an import, the symbol index finds a Java class of the same package', async () => {
    const go = snapshotOf({
      'go.mod': 'module example.com/app\n',
      'cmd/main.go': 'package main\n\nimport "example.com/app/internal/store"\n\nfunc run() error {\n\treturn store.Open("db")\n}\n',
      'internal/store/store.go': 'package store\n\n// Open connects to the database.\nfunc Open(name string) error {\n\treturn nil\n}\n',
    });
    expect(labels(await gatherChunkContext(go, [{ path: 'cmd/main.go', lines: [6] }], FULL))).toEqual(['scope cmd/main.go:5-7 enclosing function run', 'definition internal/store/store.go:3-6 definition of Open']);
    const java = snapshotOf({
      'src/main/java/shop/Cart.java': 'package shop;\n\nclass Cart {\n  int total() {\n    return Pricing.round(3);\n  }\n}\n',
      'src/main/java/shop/Pricing.java': 'package shop;\n\nclass Pricing {\n  /** Rounds to cents. */\n  static int round(int value) {\n    return value;\n  }\n}\n',
    });
    expect(labels(await gatherChunkContext(java, [{ path: 'src/main/java/shop/Cart.java', lines: [5] }], FULL))).toContain('definition src/main/java/shop/Pricing.java:4-7 definition of Pricing.round');
  });

  it('a large pull request (no symbol index): imports and the changed file still resolve, a name only the index knows does not', async () => {
    const index = snapshotOf({
      'src/cart.ts': "import { price } from './price.js';\n\nexport function total(n: number) {\n  return price(n) + shipping(n) + discount(n);\n}\n\nfunction discount(n: number) {\n  return 0;\n}\n",
      'src/price.ts': 'export function price(n: number) {\n  return n;\n}\n',
      'src/shipping.ts': 'export function shipping(n: number) {\n  return 5;\n}\n',
    });
    const changed = [{ path: 'src/cart.ts', lines: [4] }];
    const definitions = async (symbolIndex: boolean) => labels(await gatherChunkContext(index, changed, { ...FULL, symbolIndex })).filter((label) => label.startsWith('definition'));
    expect(await definitions(true)).toEqual(['definition src/price.ts:1-3 definition of price', 'definition src/shipping.ts:1-3 definition of shipping', 'definition src/cart.ts:7-9 definition of discount']);
    expect(await definitions(false)).toEqual(['definition src/price.ts:1-3 definition of price', 'definition src/cart.ts:7-9 definition of discount']);
  });

  it('deep mode: the call sites of a changed function in other files, with the header of the function they sit in', async () => {
    const index = snapshotOf({
      'lib/math.js': 'function average(values) {\n  return values.reduce((a, b) => a + b, 0) / values.length;\n}\nmodule.exports = { average };\n',
      'lib/report.js': "const { average } = require('./math');\n\nfunction summary(rows) {\n  const mean = average(rows);\n  return `mean ${mean}`;\n}\n",
    });
    const blocks = await gatherChunkContext(index, [{ path: 'lib/math.js', lines: [2] }], { definitions: true, callers: true });
    const caller = blocks.find((block) => block.kind === 'caller');
    expect(caller?.label).toBe('call of average in summary');
    expect(caller!.variants[0]).toContain('4   const mean = average(rows);\n');
  });
});

describe('functions assigned to objects (req.get = function …), in every mode', () => {
  const request = ['var req = Object.create(null)', 'module.exports = req', '', '/** Return request header. */', 'req.get =', 'req.header = function header(name) {', '  return this.headers[name.toLowerCase()]', '}', ''].join('\n');
  const response = ['var res = Object.create(null)', 'module.exports = res', '', '/** Get value for header `field`. */', 'res.get = function (field) {', '  return this.getHeader(field)', '}', ''].join('\n');
  // Two more objects with a `get`: by name alone, `get` is defined in four files, too many to pick from.
  const files = {
    'lib/request.js': request,
    'lib/response.js': response,
    'lib/cache.js': 'var cache = {}\nmodule.exports = cache\ncache.get = function (key) {\n  return cache[key]\n}\n',
    'lib/map.js': 'exports.get = function (map, key) {\n  return map[key]\n}\n',
    'lib/warm.js': "var cache = require('./cache')\n\nfunction warm(key) {\n  return cache.get(key)\n}\n",
    'app/handler.js': "function handle(req, res) {\n  var type = req.get('Content-Type')\n  return res.get(type)\n}\n",
    'lib/app.js': "var req = require('./request')\nvar res = require('./response')\n\nfunction contentType() {\n  return req.get('Content-Type')\n}\n",
  };
  const definitions = (blocks: readonly ContextBlock[]) => labels(blocks).filter((label) => label.startsWith('definition'));

  it('through the symbol index: the definition on the object the call names, out of four files defining `get`', async () => {
    const blocks = await gatherChunkContext(snapshotOf(files), [{ path: 'app/handler.js', lines: [2] }], FULL);
    expect(definitions(blocks)).toEqual(['definition lib/request.js:4-8 definition of req.get']);
    expect(blocks.find((block) => block.kind === 'definition')!.variants[0]).toBe('4 /** Return request header. */\n5 req.get =\n6 req.header = function header(name) {\n7   return this.headers[name.toLowerCase()]\n8 }\n');
    // Two objects on one line: each call's own definition.
    expect(definitions(await gatherChunkContext(snapshotOf(files), [{ path: 'app/handler.js', lines: [2, 3] }], FULL))).toEqual(['definition lib/request.js:4-8 definition of req.get', 'definition lib/response.js:4-7 definition of res.get']);
  });

  it('through require(), without the symbol index (a large pull request): the required module on the called object first', async () => {
    const blocks = await gatherChunkContext(snapshotOf(files), [{ path: 'lib/app.js', lines: [5] }], { ...FULL, symbolIndex: false });
    expect(definitions(blocks)[0]).toBe('definition lib/request.js:4-8 definition of req.get');
  });

  it('deep mode: the callers of a changed req.get, calls on req before namesakes on other objects', async () => {
    const blocks = await gatherChunkContext(snapshotOf(files), [{ path: 'lib/request.js', lines: [7] }], { definitions: true, callers: true });
    const callers = blocks.filter((block) => block.kind === 'caller').map((block) => `${block.path} ${block.label}`);
    expect(callers.slice(0, 2)).toEqual(['app/handler.js call of get in handle', 'lib/app.js call of get in contentType']);
  });

  it('find_definition: `req.get`, `res.get` and the alias `header` each find their definition first', async () => {
    const index = snapshotOf(files);
    const first = async (symbol: string) => {
      const answer = await findDefinitionAnswer(index, { symbol });
      if ('error' in answer) throw new Error(answer.error);
      return answer.text.split('\n')[0];
    };
    expect(await first('req.get')).toBe('lib/request.js lines 4-8');
    expect(await first('res.get')).toBe('lib/response.js lines 4-7');
    expect(await first('header')).toBe('lib/request.js lines 4-8');
    expect(await first('req.prototype.get')).toBe('lib/request.js lines 4-8');
  });
});

describe('files the reviewer cannot parse, and budgets', () => {
  it('a language without a grammar, a binary .py, a 5 MB minified line and a file that does not parse: context falls back, nothing throws', async () => {
    const lua = Array.from({ length: 200 }, (_, line) => `local v${line + 1} = ${line + 1}`).join('\n');
    const index = snapshotOf({
      'conf/init.lua': `${lua}\n`,
      'bin/tool.py': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 10, 10]),
      'web/app.min.js': `var a=${'1+'.repeat(2_500_000)}1;\n`,
      'src/broken.py': 'def broken(:\n    return ((\n\ndef fine():\n    return 1\n',
    });
    const blocks = await gatherChunkContext(
      index,
      [
        { path: 'conf/init.lua', lines: [100] },
        { path: 'bin/tool.py', lines: [1] },
        { path: 'web/app.min.js', lines: [1] },
        { path: 'src/broken.py', lines: [5] },
        { path: 'missing.py', lines: [1] },
      ],
      FULL,
    );
    const lines = labels(blocks);
    expect(lines).toContain('scope conf/init.lua:60-140 lines around the change');
    // What tree-sitter recovered of the broken file still gives a scope around the change.
    expect(blocks.find((block) => block.path === 'src/broken.py')?.variants[0]).toContain('5     return 1\n');
    // Binary and minified files give no context: neither bytes nor a 5 MB line reach the prompt.
    expect(lines.filter((line) => line.includes('tool.py') || line.includes('app.min.js'))).toEqual([]);
    expect(countTokens(fitContext(blocks, 2_000, 'c0ffee0').section ?? '')).toBeLessThanOrEqual(2_000);
  });

  it('a scope too large for its share keeps its header, the changed lines and nested headers, with the rest marked; blocks that do not fit are dropped whole', async () => {
    const body = Array.from({ length: 300 }, (_, line) => `    total += ${line}`);
    body.splice(150, 0, '    def inner(x):', '        return x');
    const source = `def big(total):\n${body.join('\n')}\n    return total\n`;
    const index = snapshotOf({ 'src/big.py': source });
    const blocks = await gatherChunkContext(index, [{ path: 'src/big.py', lines: [201] }], FULL);
    const fitted = fitContext(blocks, 600, null);
    expect(fitted.section).toContain('1 def big(total):\n');
    expect(fitted.section).toContain('201     total += 197\n');
    expect(fitted.section).toContain('152     def inner(x):\n');
    expect(fitted.section).toMatch(/… lines \d+-\d+ not shown …/);
    expect(fitted.section).toContain('read-only');
    expect(countTokens(fitted.section!)).toBeLessThanOrEqual(600);
    expect(fitted.stats).toMatchObject({ scopes: 1, definitions: 0 });
    // No room at all: nothing, not a part of a block.
    expect(fitContext(blocks, 40, null)).toEqual({ section: null, stats: { scopes: 0, definitions: 0, callers: 0, tokens: 0 }, shown: [] });
  });

  it('scopes share their part like water: a short scope takes what it needs, a long one the rest', () => {
    const block = (path: string, lines: number): ContextBlock => ({
      kind: 'scope',
      path,
      startLine: 1,
      endLine: lines,
      label: 'enclosing function f',
      variants: [Array.from({ length: lines }, (_, line) => `${line + 1}     value_${line} = compute(value_${line - 1})\n`).join(''), `1 def f():\n… lines 2-${lines} not shown …\n`],
    });
    const short = block('short.py', 5);
    const long = block('long.py', 60);
    const fitted = fitContext([long, short], 1_400, null);
    // An equal split (700 each) would have elided the long scope.
    expect(fitted.section).toContain('60     value_59');
    expect(fitted.section).toContain('5     value_4');
    expect(countTokens(fitted.section!)).toBeLessThanOrEqual(1_400);
  });
});
