#!/usr/bin/env node
// The `ai-review` command (decisions.md §17). The project runs its TypeScript from source, but a
// command pays its start on every run: the sources are bundled once with esbuild (the transformer
// tsx itself uses) into node_modules/.cache/ai-review/, and rebuilt only when a file of src/ is
// newer than the bundle. Should bundling be impossible (a read-only install), tsx runs the sources.
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'src/cli/main.ts');
// Inside node_modules, so that the bundle's bare imports and require.resolve find the packages.
const bundle = join(root, 'node_modules/.cache/ai-review/main.mjs');

/** The newest modification time of any file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    latest = Math.max(latest, item.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

async function bundled() {
  const builtAt = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (builtAt > newest(join(root, 'src'))) return bundle;
  const { build } = await import('esbuild');
  mkdirSync(dirname(bundle), { recursive: true });
  // Written aside and renamed: two commands started at once never read half a bundle.
  const partial = `${bundle}.${process.pid}.tmp`;
  await build({ entryPoints: [entry], outfile: partial, bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', logLevel: 'silent' });
  renameSync(partial, bundle);
  return bundle;
}

let main;
try {
  ({ main } = await import(pathToFileURL(await bundled()).href));
} catch {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(pathToFileURL(entry).href));
}
process.exitCode = await main(process.argv);
