import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeWorkers } from '../../src/code-context/code-workers.js';
import { outlineFile } from '../../src/code-context/outline-file.js';
import { ArchiveTooLargeError } from '../../src/code-context/snapshot/unpack-archive.js';

const FIXTURES = new URL('../fixtures/code-context/languages/', import.meta.url);
const workspace = mkdtempSync(join(tmpdir(), 'code-workers-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const streamOf = (bytes: Buffer) => new Blob([bytes]).stream();

async function gzippedTar(entries: Record<string, string>): Promise<Buffer> {
  const archive = pack();
  for (const [name, body] of Object.entries(entries)) archive.entry({ name }, body);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

describe('code context in worker threads', () => {
  it('outlines give the same outline as in process, for every language, with files sent side by side', async () => {
    const files = readdirSync(FIXTURES)
      .filter((name) => name.endsWith('.txt'))
      .map((name) => ({ path: name.slice(0, -'.txt'.length), text: readFileSync(new URL(name, FIXTURES), 'utf8') }));
    expect(files.length).toBeGreaterThan(10);
    const pool = new CodeWorkers(2);
    const pooled = await Promise.all(files.map((file) => pool.outline(file.path, file.text)));
    for (const [at, file] of files.entries()) expect(pooled[at], file.path).toEqual(await outlineFile(file.path, file.text));
    expect(await pool.outline('data.bin.py', 'x\0y')).toEqual({ ok: false, reason: 'binary' });
    // Outlined by the workers, not by the in-process fallback.
    expect(pool.running).toBe(2);
  });

  it('unpacks an archive into its pack and outlines its files from it; an archive over the cap fails as in process', async () => {
    const pool = new CodeWorkers(1);
    const archive = await gzippedTar({ 'octo-demo-abc/src/a.py': 'def a():\n    return 1\n', 'octo-demo-abc/README.md': '# demo\n' });
    const pack = join(workspace, 'demo.pack');
    const unpacked = await pool.unpack(streamOf(archive), pack, { maxBytes: 1024, maxFileBytes: 1024 });
    expect(unpacked).toEqual({ files: [{ path: 'src/a.py', size: 22, offset: 0 }, { path: 'README.md', size: 7, offset: 22 }], skipped: 0 });
    expect(readFileSync(pack, 'utf8')).toBe('def a():\n    return 1\n# demo\n');
    // A packed file is outlined from the pack by the worker, as its text would be in process.
    expect(await pool.outline('src/a.py', { pack, offset: 0, size: 22 })).toEqual(await outlineFile('src/a.py', 'def a():\n    return 1\n'));
    expect(await pool.outline('src/a.py', { pack: join(workspace, 'evicted.pack'), offset: 0, size: 22 })).toBeNull();
    const tooLarge = pool.unpack(streamOf(archive), join(workspace, 'small.pack'), { maxBytes: 10, maxFileBytes: 1024 });
    await expect(tooLarge).rejects.toBeInstanceOf(ArchiveTooLargeError);
    expect(pool.running).toBe(1);
  });

  it('keep a process alive while they work, and let it end once they are idle', () => {
    const pool = new URL('../../src/code-context/code-workers.ts', import.meta.url).href;
    const script = `const { CodeWorkers } = await import(${JSON.stringify(pool)}); const outline = await new CodeWorkers(1).outline('a.py', 'x = 1\\n'); console.log(outline.ok);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.stdout.trim()).toBe('true');
    expect(run.status).toBe(0);
  });
});
