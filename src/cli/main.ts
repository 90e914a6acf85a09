import { createInterface } from 'node:readline/promises';
import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT_FAILURE } from './cli-error.js';
import { FAIL_ON, FORMATS, type FailOn, type Format } from './options.js';
import { configPath, normalizeUrl, readStoredLogin, removeStoredLogin, resolveCredentials, writeStoredLogin, DEFAULT_URL } from './config-file.js';
import { ServiceClient } from './service-client.js';

/**
 * `ai-review` (decisions.md §17): `login`, `logout`, `whoami`, `review`. Answers the exit code: 0,
 * 1 when `review` found something at or above `--fail-on`, or 2 with one line on stderr naming the
 * cause and what to do.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const program = new Command('ai-review')
    .description('AI review of your change before you push it')
    .exitOverride()
    .showHelpAfterError('(run `ai-review --help` for usage)');

  program
    .command('login')
    .description('check a personal API token and remember it (create one in the web app: Settings → API tokens)')
    .option('--url <url>', `the service's address (default: AI_REVIEW_URL, the saved one, else ${DEFAULT_URL})`)
    .option('--token <token>', 'the token (default: AI_REVIEW_TOKEN, else asked on stdin)')
    .action(async (options: { url?: string; token?: string }) => {
      const path = configPath(env);
      const stored = await readStoredLogin(path);
      const url = normalizeUrl(options.url ?? (env.AI_REVIEW_URL?.trim() || stored?.url || DEFAULT_URL));
      const token = options.token?.trim() || env.AI_REVIEW_TOKEN?.trim() || (await askToken(url));
      if (!token) throw new CliError(`No token given: create one at ${url}/settings/tokens, then run \`ai-review login --token <token>\``);
      const who = await new ServiceClient(url, token).identity();
      await writeStoredLogin(path, { url, token });
      process.stdout.write(`Signed in to ${url} as ${who.name} <${who.email}>; saved to ${path}\n`);
    });

  program
    .command('logout')
    .description('forget the saved token (revoke it in the web app to end it everywhere)')
    .action(async () => {
      const path = configPath(env);
      const removed = await removeStoredLogin(path);
      process.stdout.write(removed ? `Signed out: removed ${path}\n` : `Not signed in: no ${path}\n`);
      if (env.AI_REVIEW_TOKEN) process.stderr.write('AI_REVIEW_TOKEN is still set and still used\n');
    });

  program
    .command('whoami')
    .description('show who the token acts for, and where')
    .action(async () => {
      const { url, token } = await resolveCredentials(env);
      if (!token) throw new CliError(`Not signed in: run \`ai-review login\` (or set AI_REVIEW_TOKEN)`);
      const who = await new ServiceClient(url, token).identity();
      process.stdout.write(`${who.name} <${who.email}> on ${url}\n`);
    });

  let code = 0;
  program
    .command('review')
    .description('review your change: by default the work tree against HEAD, else the branch against the remote default branch')
    .argument('[range]', "a range as git writes it: A..B or A...B")
    .addOption(new Option('--staged', 'the index against HEAD').conflicts(['base']))
    .addOption(new Option('--base <ref>', 'the work tree against the merge base of HEAD and <ref>').conflicts(['staged']))
    .addOption(new Option('--mode <mode>', 'review mode (default: .ai-review.yml, else focused)').choices(['quick', 'focused', 'deep']))
    .addOption(new Option('--format <format>', 'what stdout gets').choices(FORMATS).default('text'))
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity').choices(FAIL_ON).default('none'))
    .option('--repository <owner/name>', "whose learnings apply (default: the origin remote's owner/name)")
    .option('--local', 'run the review in this process with your own model (AI_REVIEW_MODEL), no service')
    .action(async (range: string | undefined, options: { staged?: boolean; base?: string; mode?: string; format: Format; failOn: FailOn; repository?: string; local?: boolean }) => {
      if (range !== undefined && (options.staged || options.base !== undefined)) throw new CliError('Give one change: a RANGE, --staged or --base, not several');
      // Loaded on use: `login` and `whoami` do not pay for the review's code.
      const { reviewCommand } = await import('./review-command.js');
      code = await reviewCommand(range, options, env);
    });

  try {
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message (or the help); help and version are not failures.
      return error.exitCode === 0 ? 0 : EXIT_FAILURE;
    }
    if (error instanceof CliError) {
      process.stderr.write(`ai-review: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    process.stderr.write(`ai-review: unexpected error: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
}

/** Asks for the token on a terminal; reads the first line when stdin is a pipe. */
async function askToken(url: string): Promise<string> {
  const lines = createInterface({ input: process.stdin, output: process.stdin.isTTY ? process.stderr : undefined, terminal: Boolean(process.stdin.isTTY) });
  try {
    if (process.stdin.isTTY) return (await lines.question(`Token (create one at ${url}/settings/tokens): `)).trim();
    for await (const line of lines) return line.trim();
    return '';
  } finally {
    lines.close();
  }
}
