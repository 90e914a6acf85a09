import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/ai-review.js', import.meta.url));

const GIT_ENV = { GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com' };

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `bin/ai-review.js` in `cwd`, with none of the caller's AI_REVIEW_* variables. */
export function runCli(args: string[], { cwd, env = {} }: { cwd: string; env?: Record<string, string> }): Promise<CliRun> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AI_REVIEW_') && name !== 'NO_COLOR' && name !== 'FORCE_COLOR'));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...clean, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** git in a fixture repository, as a developer would run it. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function write(dir: string, path: string, content: string): void {
  writeFileSync(join(dir, path), content);
}
