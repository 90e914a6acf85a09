/**
 * Builds the web app into web/dist, only when its inputs changed since the last build (the
 * `prestart` step: a fresh clone builds once, an unchanged one starts at once). The inputs are
 * everything under web/ and the project files the last build bundled (the API's shared schemas),
 * plus package-lock.json; their hash is kept in web/dist/.build-stamp.json. Assets are also
 * written precompressed (.br, .gz) for @fastify/static.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const rootDir = resolve(webDir, '..');
const distDir = join(webDir, 'dist');
const stampFile = join(distDir, '.build-stamp.json');

interface Stamp {
  hash: string;
  /** Project files outside web/ that the build bundled, relative to the project root. */
  externalInputs: string[];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['dist', 'node_modules'].includes(entry.name) && dir === webDir ? [] : filesUnder(path);
    return [path];
  });
}

function inputsHash(externalInputs: string[]): string {
  const hash = createHash('sha256');
  const files = [...filesUnder(webDir), ...externalInputs.map((path) => join(rootDir, path)), join(rootDir, 'package-lock.json')].sort();
  for (const file of files) {
    hash.update(relative(rootDir, file));
    hash.update('\0');
    hash.update(existsSync(file) ? readFileSync(file) : 'missing');
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamp(): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

async function precompress(): Promise<void> {
  const files = filesUnder(distDir).filter((file) => COMPRESSIBLE.test(file) && statSync(file).size > 512);
  await Promise.all(
    files.map(async (file) => {
      const content = readFileSync(file);
      const [br, gz] = await Promise.all([
        brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
        gzipAsync(content, { level: 9 }),
      ]);
      writeFileSync(`${file}.br`, br);
      writeFileSync(`${file}.gz`, gz);
    }),
  );
}

export async function buildWeb({ force = false, quiet = false } = {}): Promise<{ built: boolean; ms: number }> {
  const started = performance.now();
  const stamp = readStamp();
  if (!force && stamp && existsSync(join(distDir, 'index.html')) && stamp.hash === inputsHash(stamp.externalInputs)) {
    return { built: false, ms: performance.now() - started };
  }
  const { build } = await import('vite');
  // Always a production build, whoever runs it (vitest sets NODE_ENV=test, which Vite would honour
  // and ship React's development build).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  let output: Awaited<ReturnType<typeof build>>;
  try {
    output = await build({ configFile: join(webDir, 'vite.config.ts'), mode: 'production', logLevel: quiet ? 'warn' : 'info' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  const outputs = (Array.isArray(output) ? output : [output]) as Array<{ output?: Array<{ type: string; moduleIds?: string[] }> }>;
  const externalInputs = new Set<string>();
  for (const result of outputs) {
    for (const chunk of result.output ?? []) {
      for (const id of chunk.moduleIds ?? []) {
        const path = id.split('?')[0]!;
        if (path.startsWith(rootDir + sep) && !path.startsWith(webDir) && !path.includes(`${sep}node_modules${sep}`)) externalInputs.add(relative(rootDir, path));
      }
    }
  }
  await precompress();
  const inputs = [...externalInputs].sort();
  writeFileSync(stampFile, JSON.stringify({ hash: inputsHash(inputs), externalInputs: inputs } satisfies Stamp, null, 2));
  return { built: true, ms: performance.now() - started };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { built, ms } = await buildWeb({ force: process.argv.includes('--force') });
  console.log(built ? `web app built in ${Math.round(ms)} ms` : `web app unchanged (checked in ${Math.round(ms)} ms)`);
}
