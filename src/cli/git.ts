import { execFile } from 'node:child_process';
import { CliError } from './cli-error.js';

/** git's output can be a whole diff: well past execFile's 1 MiB default. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

export class GitFailure extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`git ${args.join(' ')}: ${stderr.trim().split('\n')[0] ?? 'failed'}`);
    this.name = 'GitFailure';
  }
}

/**
 * The `git` binary in one work tree. Every call goes through execFile with an argument array (no
 * shell); settings that would change the text the service parses are pinned on each call.
 */
export class Git {
  constructor(readonly cwd: string) {}

  /** The work tree's root, or a one-line error when `cwd` is not in one. */
  static async open(cwd: string): Promise<Git> {
    try {
      const top = (await new Git(cwd).run(['rev-parse', '--show-toplevel'])).trim();
      return new Git(top);
    } catch (error) {
      if (error instanceof GitFailure) throw new CliError(`Not a git repository (${cwd}): run \`ai-review review\` inside a git work tree`);
      throw error;
    }
  }

  run(args: readonly string[], { buffer = false }: { buffer?: boolean } = {}): Promise<string> {
    const full = ['-c', 'core.quotePath=false', '-c', 'color.ui=false', ...args];
    return new Promise((resolve, reject) => {
      execFile('git', full, { cwd: this.cwd, maxBuffer: MAX_OUTPUT_BYTES, encoding: buffer ? 'buffer' : 'utf8', env: { ...process.env, GIT_PAGER: 'cat', LC_ALL: 'C' } }, (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') return reject(new CliError('git is not installed or not on PATH: install git'));
          return reject(new GitFailure(args, String(stderr), typeof error.code === 'number' ? error.code : null));
        }
        resolve(String(stdout));
      });
    });
  }

  /** Like `run`, undefined when git fails (a ref that does not exist, a file not at that commit). */
  async maybe(args: readonly string[]): Promise<string | undefined> {
    try {
      return await this.run(args);
    } catch (error) {
      if (error instanceof GitFailure) return undefined;
      throw error;
    }
  }

  /** A diff in the unified format with git's headers, `a/` and `b/` prefixes whatever the user's settings. */
  diff(args: readonly string[]): Promise<string> {
    return this.run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/', '--find-renames', ...args]);
  }

  /** The paths the diff leaves in place (added, modified, renamed: not deleted). */
  async changedPaths(args: readonly string[]): Promise<string[]> {
    const out = await this.run(['diff', '--no-ext-diff', '--name-only', '--diff-filter=d', '--find-renames', '-z', ...args]);
    return out.split('\0').filter((path) => path !== '');
  }

  async commit(ref: string): Promise<string | undefined> {
    return (await this.maybe(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]))?.trim() || undefined;
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    return (await this.maybe(['merge-base', a, b]))?.trim() || undefined;
  }
}
