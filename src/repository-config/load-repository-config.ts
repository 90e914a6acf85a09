import { getJson, setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import { FileRefusedError, type FileReader } from '../domain/host-files.js';
import { parseRepositoryConfig } from './parse-repository-config.js';
import { DEFAULT_REPOSITORY_CONFIG, REPOSITORY_CONFIG_PATH, type RepositoryConfig } from './repository-config-schema.js';

/** A file at a commit never changes: the entry only has to outlive the runs of one base commit. */
const CACHE_TTL_SECONDS = 24 * 60 * 60;

/**
 * The repository's `.ai-review.yml` at the change's base commit (never the head: a change cannot
 * switch off its own review), read through the change's reader (its host, its token), cached per
 * repository and base commit. The host refusing the file (no permission for contents) leaves the
 * defaults and says so; a host or network failure throws, so the step is retried like the diff read.
 */
export async function readRepositoryConfig(kv: KeyValueStore, files: FileReader & { repositoryKey: string }, baseSha: string): Promise<RepositoryConfig> {
  const cached = await cachedRepositoryConfig(kv, files.repositoryKey, baseSha);
  if (cached !== null) return cached;
  let text: string | null;
  try {
    text = await files.fileAt(REPOSITORY_CONFIG_PATH, baseSha);
  } catch (error) {
    if (error instanceof FileRefusedError) {
      return { ...DEFAULT_REPOSITORY_CONFIG, problems: [{ line: 1, message: `${REPOSITORY_CONFIG_PATH} could not be read (${error.message}); the defaults apply` }] };
    }
    throw error;
  }
  const config = text === null ? DEFAULT_REPOSITORY_CONFIG : parseRepositoryConfig(text);
  // The cache is an optimization: a store that is down costs a host read, never the review.
  await setJson(kv, cacheKey(files.repositoryKey, baseSha), config, CACHE_TTL_SECONDS).catch(() => undefined);
  return config;
}

const cacheKey = (repositoryKey: string, baseSha: string) => `repo-config:${repositoryKey}@${baseSha}`;

/** The file as a run of this repository and base commit read it, if one did lately; null when unknown (or the store is down). */
export function cachedRepositoryConfig(kv: KeyValueStore, repositoryKey: string, baseSha: string): Promise<RepositoryConfig | null> {
  return getJson<RepositoryConfig>(kv, cacheKey(repositoryKey, baseSha)).catch(() => null);
}
