import { personal } from '../domain/owners.js';
import pino from 'pino';
import { createLanguageModel } from '../ai/language-models.js';
import type { ModelChoice } from '../ai/model-router.js';
import { CodeIndex } from '../code-context/code-index.js';
import { codeWorkers } from '../code-context/code-workers.js';
import { grammarFor } from '../code-context/grammars.js';
import { languageForPath } from '../code-context/language-specs.js';
import { RepositorySnapshot } from '../code-context/snapshot/repository-snapshot.js';
import type { ReviewMode } from '../db/schema/index.js';
import { parseRepositoryConfig } from '../repository-config/parse-repository-config.js';
import { reviewMode } from '../repository-config/run-policy.js';
import { scoreReview } from '../review/findings/score.js';
import { reviewChange } from '../review/pipeline/review-step.js';
import type { SelectedChange } from './change.js';
import { CliError } from './cli-error.js';
import type { DiffReviewResult } from './formats.js';
import type { Git } from './git.js';
import type { Progress } from './progress.js';

/** Each provider's usual key variable and API (decisions.md §17). */
const PROVIDERS = {
  openai: { key: 'OPENAI_API_KEY', read: (env: NodeJS.ProcessEnv) => env.OPENAI_API_KEY, baseUrl: 'https://api.openai.com/v1' },
  anthropic: { key: 'ANTHROPIC_API_KEY', read: (env: NodeJS.ProcessEnv) => env.ANTHROPIC_API_KEY, baseUrl: 'https://api.anthropic.com/v1' },
  google: { key: 'GOOGLE_GENERATIVE_AI_API_KEY', read: (env: NodeJS.ProcessEnv) => env.GOOGLE_GENERATIVE_AI_API_KEY, baseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
} as const;
type LocalProvider = keyof typeof PROVIDERS;

/**
 * `--local`: the service's engine in this process, with no database, no service and no account.
 * The model is `AI_REVIEW_MODEL` (`provider:model`) with the provider's key variable, or any server
 * speaking OpenAI's chat-completions API at `AI_REVIEW_BASE_URL`. The code context is the work tree,
 * read from disk as a whole snapshot (decisions.md §11's scopes, definitions and, deep, callers).
 */
export async function reviewLocally(git: Git, change: SelectedChange, config: string | undefined, requestedMode: string | undefined, choice: ModelChoice, progress: Progress): Promise<DiffReviewResult> {
  codeWorkers.inProcess();
  let done = 0;
  let total = 0;
  const repositoryConfig = parseRepositoryConfig(config ?? '');
  const { output, coverage } = await reviewChange(
    { models: { resolve: () => Promise.resolve(choice) }, log: pino({ level: 'silent' }), feedback: { forReview: () => Promise.resolve({ rejected: [], learnings: [] }) } },
    {
      owner: personal('local'),
      memberId: null,
      // No learnings: they live in the service.
      repositoryName: null,
      mode: reviewMode((requestedMode as ReviewMode | undefined) ?? null, repositoryConfig),
      settings: null,
      usage: { kind: 'review' },
      pullRequest: { title: change.label },
      config: repositoryConfig,
      diff: change.diff,
      incrementalSince: null,
      headSha: change.headCommit ?? null,
      baseSha: null,
      previousFindings: [],
      openCode: async () => ({ index: new CodeIndex(await workTreeSnapshot(git)) }),
      progress: {
        planned: (chunks) => {
          total = chunks;
          return Promise.resolve();
        },
        chunkDone: () => Promise.resolve(progress.chunks(++done, total)),
      },
    },
  );
  return { reviewSummary: output.summary.overview, score: scoreReview(output), reviewRawJSON: output, skippedFiles: output.skippedFiles, configProblems: output.configProblems, coverage };
}

/** Loads the changed files' grammars now, while git and the model's setup run: the first outline would wait for them. */
export function warmGrammars(paths: readonly string[]): void {
  for (const language of new Set(paths.map((path) => languageForPath(path)))) if (language) void grammarFor(language).catch(() => undefined);
}

/** The model `AI_REVIEW_MODEL` names, or a one-line error saying what to set. */
export function localModel(env: NodeJS.ProcessEnv): ModelChoice {
  // The AI SDK's own warnings (a setting a provider ignores) would interleave with the result.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  const spec = env.AI_REVIEW_MODEL?.trim();
  const colon = spec?.indexOf(':') ?? -1;
  if (!spec || colon <= 0 || colon === spec.length - 1) throw new CliError('--local needs a model: set AI_REVIEW_MODEL to provider:model (e.g. openai:gpt-4.1-mini), and AI_REVIEW_BASE_URL for a local OpenAI-compatible server');
  const provider = spec.slice(0, colon) as LocalProvider;
  const modelId = spec.slice(colon + 1);
  const baseUrl = env.AI_REVIEW_BASE_URL?.trim();
  if (!(provider in PROVIDERS)) throw new CliError(`Unknown provider ${provider} in AI_REVIEW_MODEL: use openai, anthropic or google (openai with AI_REVIEW_BASE_URL for a local server)`);
  const { key, read, baseUrl: defaultUrl } = PROVIDERS[provider];
  const apiKey = read(env)?.trim() ?? '';
  if (!baseUrl && apiKey === '') throw new CliError(`--local with ${provider} needs ${key}: set it, or set AI_REVIEW_BASE_URL for a local server`);
  // A server of one's own speaks chat completions (Ollama, vLLM, llama.cpp), whatever the provider's own API is.
  const model = baseUrl ? createLanguageModel({ provider: 'custom', baseUrl, apiKey, modelId }) : createLanguageModel({ provider, baseUrl: defaultUrl, apiKey, modelId });
  return { model, meteredAs: () => model, modelId, source: 'byok', providerId: null, providerName: baseUrl ? 'custom' : provider, contextLength: null };
}

/** The tracked files of the work tree, read where they are. */
async function workTreeSnapshot(git: Git): Promise<RepositorySnapshot> {
  const listed = await git.run(['ls-files', '-z', '--format=%(objectsize) %(path)']).catch(() => undefined);
  const files =
    listed === undefined
      ? (await git.run(['ls-files', '-z'])).split('\0').filter(Boolean).map((path) => ({ path, size: 0 }))
      : listed
          .split('\0')
          .filter(Boolean)
          .map((entry) => {
            const space = entry.indexOf(' ');
            return { path: entry.slice(space + 1), size: Number(entry.slice(0, space)) || 0 };
          });
  return new RepositorySnapshot('tarball', 'work tree', git.cwd, files, undefined);
}
