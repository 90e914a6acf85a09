import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `main` as the process runs its sources: from TypeScript through tsx
 * (`npm start`), whose loader a worker thread does not inherit, so it registers it first; or from
 * compiled JavaScript. `main` is `sourceUrl('./x', import.meta.url)`.
 */
export function startSourceWorker(main: URL): Worker {
  if (!main.pathname.endsWith('.ts')) return new Worker(main);
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(main.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}

/** The module `path` (without extension) next to `from`, with the extension `from` runs with. */
export function sourceUrl(path: string, from: string): URL {
  return new URL(`${path}.${from.endsWith('.ts') ? 'ts' : 'js'}`, from);
}
