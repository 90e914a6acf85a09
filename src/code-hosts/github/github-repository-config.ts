import type { GitHubClient } from '../../adapters/github/github-client.js';
import type { KeyValueStore } from '../../adapters/kv/key-value-store.js';
import { readRepositoryConfig } from '../../repository-config/load-repository-config.js';
import type { RepositoryConfig } from '../../repository-config/repository-config-schema.js';
import { githubFileRead } from './github-reader.js';

/** The same, for a GitHub repository read with a given token (outside a review run: tests, tools). */
export function loadRepositoryConfig(source: { github: GitHubClient; kv: KeyValueStore }, repositoryName: string, baseSha: string, token: string | undefined): Promise<RepositoryConfig> {
  return readRepositoryConfig(source.kv, { repositoryKey: repositoryName, fileAt: (path, ref) => githubFileRead(source.github.fileContent(repositoryName, path, ref, token)) }, baseSha);
}
