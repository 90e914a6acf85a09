import { GitHubApiError, type GitHubClient } from '../adapters/github/github-client.js';
import { getJson, setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import { parseRepositoryConfig } from './parse-repository-config.js';
import { DEFAULT_REPOSITORY_CONFIG, REPOSITORY_CONFIG_PATH, type RepositoryConfig } from './repository-config-schema.js';

/** A file at a commit never changes: the entry only has to outlive the runs of one base commit. */
const CACHE_TTL_SECONDS = 24 * 60 * 60;

export interface RepositoryConfigSource {
  github: GitHubClient;
  kv: KeyValueStore;
}

/**
 * The repository's `.ai-review.yml` at the pull request's base commit (never the head: a pull
 * request cannot switch off its own review), read with the diff's token, cached per repository and
 * base commit. GitHub refusing the file (no permission for contents) leaves the defaults and says
 * so; a GitHub or network failure throws, so the step is retried like the diff read.
 */
export async function loadRepositoryConfig(source: RepositoryConfigSource, repositoryName: string, baseSha: string, token: string | undefined): Promise<RepositoryConfig> {
  const cached = await cachedRepositoryConfig(source.kv, repositoryName, baseSha);
  if (cached !== null) return cached;
  let text: string | null;
  try {
    text = await source.github.fileContent(repositoryName, REPOSITORY_CONFIG_PATH, baseSha, token);
  } catch (error) {
    if (error instanceof GitHubApiError && error.status >= 400 && error.status < 500 && error.status !== 429) {
      return { ...DEFAULT_REPOSITORY_CONFIG, problems: [{ line: 1, message: `${REPOSITORY_CONFIG_PATH} could not be read (GitHub answered ${error.status}); the defaults apply` }] };
    }
    throw error;
  }
  const config = text === null ? DEFAULT_REPOSITORY_CONFIG : parseRepositoryConfig(text);
  // The cache is an optimization: a store that is down costs a GitHub read, never the review.
  await setJson(source.kv, cacheKey(repositoryName, baseSha), config, CACHE_TTL_SECONDS).catch(() => undefined);
  return config;
}

const cacheKey = (repositoryName: string, baseSha: string) => `repo-config:${repositoryName}@${baseSha}`;

/** The file as a run of this repository and base commit read it, if one did lately; null when unknown (or the store is down). */
export function cachedRepositoryConfig(kv: KeyValueStore, repositoryName: string, baseSha: string): Promise<RepositoryConfig | null> {
  return getJson<RepositoryConfig>(kv, cacheKey(repositoryName, baseSha)).catch(() => null);
}
