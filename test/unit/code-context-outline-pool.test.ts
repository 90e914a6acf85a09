import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outlineFile } from '../../src/code-context/outline-file.js';
import { OutlinePool } from '../../src/code-context/outline-pool.js';

const FIXTURES = new URL('../fixtures/code-context/languages/', import.meta.url);

describe('outlines in worker threads', () => {
  it('give the same outline as in process, for every language, with files sent side by side', async () => {
    const files = readdirSync(FIXTURES)
      .filter((name) => name.endsWith('.txt'))
      .map((name) => ({ path: name.slice(0, -'.txt'.length), text: readFileSync(new URL(name, FIXTURES), 'utf8') }));
    expect(files.length).toBeGreaterThan(10);
    const pool = new OutlinePool(2);
    const pooled = await Promise.all(files.map((file) => pool.outline(file.path, file.text)));
    for (const [at, file] of files.entries()) expect(pooled[at], file.path).toEqual(await outlineFile(file.path, file.text));
    expect(await pool.outline('data.bin.py', 'x\0y')).toEqual({ ok: false, reason: 'binary' });
    // Outlined by the workers, not by the in-process fallback.
    expect(pool.running).toBe(2);
  });
});
