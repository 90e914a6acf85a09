import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseMarkdown, REPOSITORY_ROOT, tableUnder } from '../helpers/markdown-docs.js';

/**
 * The floors of `src/`, from the bottom up (docs/architecture.md shows the same table). A file may
 * import files of its own room and of rooms on lower floors, never of its own floor's other rooms
 * or of a floor above. Host-neutral rooms do not import the host clients either: what is specific
 * to GitHub or GitLab reaches them through the code-host seam. Paths are relative to `src/`; when
 * several rooms match a file, the longest pattern decides (`review/pipeline/**` before `review/**`).
 */
const ROOMS: Room[] = [
  { floor: 0, room: 'domain', paths: ['domain/**'], neutral: true, what: 'shared contract types: findings, review content, providers, host kinds; imports nothing of the project' },
  { floor: 1, room: 'lib', paths: ['lib/**'], neutral: true, what: 'generic helpers: errors, logging, crypto, ids, outbound-address policy' },
  { floor: 1, room: 'config', paths: ['config/**'], neutral: true, what: 'the environment schema and the parsed configuration' },
  { floor: 2, room: 'db', paths: ['db/**'], neutral: true, what: 'the Drizzle schema, the database handle (PGlite or PostgreSQL), SQL helpers' },
  { floor: 3, room: 'adapters', paths: ['adapters/*.ts', 'adapters/{kv,mail,metrics,queue}/**'], neutral: true, what: 'infrastructure behind one small interface each: key-value store, mail, metrics, job queue' },
  { floor: 4, room: 'host-clients', paths: ['adapters/github/**'], what: "the HTTP client of GitHub's API, which sign-in and the App's registry use as well as the host (other hosts keep their clients in their folders)" },
  { floor: 4, room: 'repositories', paths: ['repositories/**'], neutral: true, what: 'queries, one repository per table group' },
  { floor: 5, room: 'ai', paths: ['ai/**'], neutral: true, what: 'model catalogs, language models, the model router, usage metering' },
  { floor: 5, room: 'repository-config', paths: ['repository-config/**'], neutral: true, what: '`.ai-review.yml`: schema, parsing, loading, run policy' },
  { floor: 6, room: 'code-context', paths: ['code-context/**'], neutral: true, what: 'snapshots of the reviewed commit, the code index, context blocks' },
  { floor: 7, room: 'review', paths: ['review/**'], neutral: true, what: "the reviewer's logic: prepare the diff, ask the model, read its answer, handle findings" },
  { floor: 7, room: 'code-host-seam', paths: ['code-hosts/*.ts'], neutral: true, what: 'what the service needs from a code host (interfaces) and the registry type' },
  { floor: 8, room: 'publishing', paths: ['publishing/**'], what: 'comment bodies, markers, commands, the publication step and gone findings, written once for every host' },
  { floor: 8, room: 'api-schemas', paths: ['routes/common-schemas.ts', 'routes/*/*-schemas.ts'], neutral: true, what: 'the HTTP API in zod (requests, responses); routes, services and the web app share it' },
  { floor: 9, room: 'services', paths: ['services/**'], what: 'domain services: the rules behind each endpoint, used by routes, workers and publishing alike' },
  { floor: 10, room: 'review-pipeline', paths: ['review/pipeline/**'], neutral: true, what: "the review's job steps: draft, extract, review, sanitize, commands, email, diff reviews" },
  { floor: 11, room: 'hosts', paths: ['code-hosts/*/**'], what: "each code host's implementation of the seam, one folder per host" },
  { floor: 11, room: 'workers', paths: ['workers/**'], what: 'job loops: the review workers, the webhook outbox relay, worker threads' },
  { floor: 12, room: 'registry', paths: ['code-hosts/registry.ts'], what: 'the list of code hosts: each host\'s intake rules, routes, publisher and reader, one line per host' },
  { floor: 13, room: 'plugins', paths: ['plugins/**', 'types/**'], what: 'Fastify plugins: infrastructure, repositories and services wired per app, authentication' },
  { floor: 14, room: 'routes', paths: ['routes/**', 'code-hosts/*/*-routes.ts', 'code-hosts/route-registry.ts'], what: "HTTP routes: validate, call a service, answer (a host's own routes live in its folder)" },
  { floor: 15, room: 'app', paths: ['app.ts'], what: 'the Fastify app: plugins and routes registered' },
  { floor: 16, room: 'entry', paths: ['server.ts', 'workers/worker-thread-main.ts'], what: "process entry points: the server, a worker thread's main" },
  { floor: 16, room: 'cli', paths: ['cli/**'], what: 'the `ai-review` command line: talks to the service over HTTP' },
];

interface Room {
  floor: number;
  room: string;
  /** picomatch globs relative to `src/`. */
  paths: string[];
  what: string;
  /** Host-neutral: may not import `host-clients`, whatever their floor. */
  neutral?: boolean;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');
const patterns = ROOMS.flatMap((room) => room.paths.map((pattern) => ({ room, pattern, match: picomatch(pattern) }))).sort((a, b) => b.pattern.length - a.pattern.length);

/** The room of a `src/`-relative path: the room of the longest pattern that matches it. */
const roomOf = (path: string): Room | undefined => patterns.find(({ match }) => match(path))?.room;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every relative import of every file in `src/` (type-only imports, re-exports and `import()` included), resolved to a file. */
function importGraph(): { files: string[]; edges: Map<string, string[]>; unresolved: string[] } {
  const files = sourceFiles(src).map((file) => relative(src, file));
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(src, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = resolve(join(src, dirname(file)), fileName).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, `${base}.d.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
      if (target === undefined) unresolved.push(`${file} imports ${fileName}`);
      else targets.add(relative(src, target));
    }
    edges.set(file, [...targets]);
  }
  return { files, edges, unresolved };
}

/** Strongly connected components with more than one file (Tarjan), each sorted. */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

const allowed = (from: Room, to: Room) => from === to || (to.floor < from.floor && !(from.neutral && to.room === 'host-clients'));

describe('the floors of src/', () => {
  const graph = importGraph();

  it('resolves every relative import', () => {
    expect(graph.unresolved).toEqual([]);
  });

  it('puts every file in a room', () => {
    expect(graph.files.filter((file) => roomOf(file) === undefined)).toEqual([]);
  });

  it('imports only downward, with no exception', () => {
    const violations: string[] = [];
    for (const [file, targets] of graph.edges) {
      const from = roomOf(file)!;
      for (const target of targets) {
        const to = roomOf(target)!;
        if (allowed(from, to)) continue;
        const rule = to.room === 'host-clients' && to.floor < from.floor ? 'is host-neutral and may not import' : 'may not import';
        violations.push(`${file} → ${target}: ${from.room} (floor ${from.floor}) ${rule} ${to.room} (floor ${to.floor})`);
      }
    }
    expect(violations, 'imports that break a floor (move the code, or take a type from domain/)').toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    // Type-only cycles count: they still tie the files' floors together and make moving one file drag the other.
    expect(cycles(graph.edges)).toEqual([]);
  });

  it('lists rooms whose floors form a single order', () => {
    // The table above, checked: floors only grow down the list, so reading it top to bottom is reading the building bottom up.
    const floors = ROOMS.map((room) => room.floor);
    expect(floors).toEqual([...floors].sort((a, b) => a - b));
  });

  it('is the table docs/architecture.md shows under "Layers"', () => {
    const rows = tableUnder(parseMarkdown(join(REPOSITORY_ROOT, 'docs/architecture.md')), 'Layers');
    const documented = rows.map(([floor, room, paths]) => ({ floor: Number(floor), room: room!.replace(' (host-neutral)', ''), neutral: room!.endsWith('(host-neutral)'), paths: paths!.split(', ') }));
    expect(documented).toEqual(ROOMS.map(({ floor, room, neutral, paths }) => ({ floor, room, neutral: neutral === true, paths })));
  });
});
