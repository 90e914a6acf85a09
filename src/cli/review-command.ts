import { CliError, EXIT_FINDINGS } from './cli-error.js';
import { resolveCredentials } from './config-file.js';
import { changeFiles, configAtBase, repositoryFromRemote, selectChange, type Selection } from './change.js';
import { failsOn, render, type DiffReviewResult, type FailOn, type Format } from './formats.js';
import { Git } from './git.js';
import { Progress } from './progress.js';
import { ServiceClient } from './service-client.js';

export interface ReviewOptions {
  staged?: boolean;
  base?: string;
  mode?: string;
  format: Format;
  failOn: FailOn;
  repository?: string;
  local?: boolean;
}

const VERSION = '0.1.0';

/** `ai-review review`: the change selected, reviewed by the service, the result on stdout; its exit code (decisions.md §17). */
export async function reviewCommand(range: string | undefined, options: ReviewOptions, env: NodeJS.ProcessEnv): Promise<number> {
  // The engine loads while git works (most of `--local`'s start-up is loading it).
  const engine = options.local ? import('./local-review.js') : undefined;
  engine?.catch(() => undefined);
  const progress = new Progress();
  const git = await Git.open(process.cwd());
  const selection: Selection = options.staged ? { kind: 'staged' } : options.base !== undefined ? { kind: 'base', ref: options.base } : range !== undefined ? { kind: 'range', range } : { kind: 'default' };
  const change = await selectChange(git, selection);
  const changed = `${change.changedPaths.length} file${change.changedPaths.length === 1 ? '' : 's'} changed`;
  const revision = change.headCommit?.slice(0, 12) ?? 'work tree';
  const color = options.format === 'text' && Boolean(process.stdout.isTTY) && !env.NO_COLOR;
  if (options.local) {
    // Nothing leaves the machine but the model's requests: no service, no account, no files sent.
    const { localModel, reviewLocally, warmGrammars } = await engine!;
    const choice = localModel(env);
    warmGrammars(change.changedPaths);
    progress.note(`Reviewing ${change.label} locally with ${choice.modelId}: ${changed}`);
    const result = await reviewLocally(git, change, await configAtBase(git, change), options.mode, choice, progress);
    progress.clear();
    process.stdout.write(render(options.format, result, { color, reviewUrl: 'local review', revision, version: VERSION }));
    return failsOn(result, options.failOn) ? EXIT_FINDINGS : 0;
  }
  const [files, config, repository] = await Promise.all([changeFiles(change), configAtBase(git, change), options.repository ?? repositoryFromRemote(git)]);
  progress.note(`Reviewing ${change.label}: ${changed}, ${files.length} sent`);

  const { url, token } = await resolveCredentials(env);
  if (!token) throw new CliError('Not signed in: run `ai-review login` (or set AI_REVIEW_TOKEN), or review without the service with --local');
  const client = new ServiceClient(url, token);
  const reviewId = await client.reviewDiff({
    diff: change.diff,
    files,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(repository ? { repository } : {}),
    ...(config !== undefined ? { config } : {}),
    title: change.label,
  });
  const result = await awaitResult(client, reviewId, progress);
  progress.clear();
  process.stdout.write(render(options.format, result, { color, reviewUrl: `${url}/review/diff/${reviewId}`, revision, version: VERSION }));
  return failsOn(result, options.failOn) ? EXIT_FINDINGS : 0;
}

/** Follows the review's events to its end; the stream breaking off falls back to reading its state. */
async function awaitResult(client: ServiceClient, reviewId: string, progress: Progress): Promise<DiffReviewResult> {
  progress.note(`Queued review ${reviewId}`);
  try {
    for await (const event of client.reviewEvents(reviewId)) {
      if (event.type === 'progress') progress.chunks(event.done, event.total);
      else if (event.type === 'completed') return event.review;
      else throw new CliError(`The review failed: ${event.error}`);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
  }
  for (;;) {
    const state = await client.reviewState(reviewId);
    if (state.status === 'completed' && state.review) return state.review;
    if (state.status === 'failed') throw new CliError(`The review failed: ${state.error ?? 'no reason given'}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
