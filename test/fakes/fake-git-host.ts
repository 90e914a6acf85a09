import { execFileSync, spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeSend } from './fake-github.js';

/**
 * GitHub's code-reading endpoints served from a real git repository on disk (a fixture made by
 * `test/helpers/git-fixture.ts`): the tarball (through the redirect to the archive host, as GitHub
 * does), git trees and blobs, and the contents API in its JSON and raw forms.
 */
/** GitHub's raw media type, with or without the API version Octokit adds (`vnd.github.v3.raw`). */
const isRaw = (request: IncomingMessage) => /^application\/vnd\.github(\.v3)?\.raw/.test(request.headers.accept ?? '');

function sendBytes(response: ServerResponse, bytes: Buffer, type: string): true {
  response.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
  response.end(bytes);
  return true;
}

/** `git archive` as GitHub names the archive's top folder (`owner-name-sha7/`). */
const archiveArgs = (fullName: string, commit: string) => ['archive', '--format=tar.gz', `--prefix=${fullName.replace('/', '-')}-${commit.slice(0, 7)}/`, commit];

export class FakeGitHost {
  private readonly repositories = new Map<string, string>();
  /** Archives served as given instead of `git archive` (hostile archives in tests). */
  private readonly archives = new Map<string, Buffer>();

  constructor(private readonly baseUrl: () => string) {}

  serveRepository(fullName: string, gitDir: string): void {
    this.repositories.set(fullName, gitDir);
  }

  setArchive(fullName: string, commit: string, gzippedTar: Buffer): void {
    this.archives.set(`${fullName}@${commit}`, gzippedTar);
  }

  /**
   * Makes a commit's archive ahead of its download, as GitHub's codeload serves archives it has
   * already made: a benchmark then measures the service, not `git archive` compressing on its cores.
   */
  prepareArchive(fullName: string, ref: string): void {
    const gitDir = this.repositories.get(fullName);
    const commit = gitDir && this.resolve(gitDir, ref);
    if (!gitDir || !commit) throw new Error(`${fullName} has no commit ${ref}`);
    this.archives.set(`${fullName}@${ref}`, execFileSync('git', archiveArgs(fullName, commit), { cwd: gitDir, maxBuffer: 1 << 30 }));
  }

  /** True when it answered. */
  handle(request: IncomingMessage, url: URL, response: ServerResponse, send: FakeSend): boolean {
    const tarball = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/(.+)$/.exec(url.pathname);
    if (tarball) {
      const [, owner, name, ref] = tarball;
      if (!this.knows(`${owner}/${name}`, ref!)) return send(404, { message: 'Not Found' }), true;
      send(302, '', 'text/html', { location: `${this.baseUrl()}/_codeload/${owner}/${name}/legacy.tar.gz/${ref}` });
      return true;
    }
    const codeload = /^\/_codeload\/([^/]+)\/([^/]+)\/legacy\.tar\.gz\/(.+)$/.exec(url.pathname);
    if (codeload) {
      const [, owner, name, ref] = codeload;
      const fullName = `${owner}/${name}`;
      const given = this.archives.get(`${fullName}@${ref}`);
      if (given) return sendBytes(response, given, 'application/x-gzip');
      const gitDir = this.repositories.get(fullName);
      const commit = gitDir && this.resolve(gitDir, ref!);
      if (!gitDir || !commit) return send(404, { message: 'Not Found' }), true;
      response.writeHead(200, { 'content-type': 'application/x-gzip' });
      const archive = spawn('git', archiveArgs(fullName, commit), { cwd: gitDir });
      archive.stdout.pipe(response);
      return true;
    }
    const git = /^\/repos\/([^/]+\/[^/]+)\/git\/(trees|blobs)\/(.+)$/.exec(url.pathname);
    if (git) {
      const [, fullName, kind, ref] = git;
      const gitDir = this.repositories.get(fullName!);
      if (!gitDir) return false;
      if (kind === 'trees') {
        const commit = this.resolve(gitDir, ref!);
        if (!commit) return send(404, { message: 'Not Found' }), true;
        const recursive = url.searchParams.has('recursive') ? ['-r'] : [];
        const tree = this.git(gitDir, ['ls-tree', '-l', '--full-tree', ...recursive, commit])
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [meta, path] = line.split('\t') as [string, string];
            const [mode, type, sha, size] = meta.split(/\s+/) as [string, string, string, string];
            return { path, mode, type, sha, ...(type === 'blob' ? { size: Number(size) } : {}), url: `${this.baseUrl()}/repos/${fullName}/git/${type}s/${sha}` };
          });
        return send(200, { sha: commit, url: url.toString(), tree, truncated: false }), true;
      }
      const content = this.blob(gitDir, ref!);
      if (!content) return send(404, { message: 'Not Found' }), true;
      if (isRaw(request)) return sendBytes(response, content, 'application/octet-stream');
      return send(200, { sha: ref, node_id: `B_${ref}`, size: content.length, url: url.toString(), content: content.toString('base64'), encoding: 'base64' }), true;
    }
    const contents = /^\/repos\/([^/]+\/[^/]+)\/contents\/(.+)$/.exec(url.pathname);
    if (contents) {
      const [, fullName, encodedPath] = contents;
      const gitDir = this.repositories.get(fullName!);
      if (!gitDir) return false;
      const path = decodeURIComponent(encodedPath!);
      const commit = this.resolve(gitDir, url.searchParams.get('ref') ?? 'HEAD');
      const sha = commit && this.tryGit(gitDir, ['rev-parse', `${commit}:${path}`])?.trim();
      const content = sha ? this.blob(gitDir, sha) : undefined;
      if (!content) return send(404, { message: 'Not Found' }), true;
      if (isRaw(request)) return sendBytes(response, content, 'text/plain; charset=utf-8');
      const name = path.slice(path.lastIndexOf('/') + 1);
      return send(200, { type: 'file', encoding: 'base64', size: content.length, name, path, content: content.toString('base64'), sha, url: url.toString() }), true;
    }
    return false;
  }

  private knows(fullName: string, ref: string): boolean {
    if (this.archives.has(`${fullName}@${ref}`)) return true;
    const gitDir = this.repositories.get(fullName);
    return gitDir !== undefined && this.resolve(gitDir, ref) !== undefined;
  }

  private resolve(gitDir: string, ref: string): string | undefined {
    return this.tryGit(gitDir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])?.trim() || undefined;
  }

  private blob(gitDir: string, sha: string): Buffer | undefined {
    if (!/^[0-9a-f]{40}$/.test(sha)) return undefined;
    try {
      return execFileSync('git', ['cat-file', 'blob', sha], { cwd: gitDir, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return undefined;
    }
  }

  private git(gitDir: string, args: string[]): string {
    return execFileSync('git', args, { cwd: gitDir, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  }

  private tryGit(gitDir: string, args: string[]): string | undefined {
    try {
      return this.git(gitDir, args);
    } catch {
      return undefined;
    }
  }
}
