import type { CodeIndex } from '../code-context/code-index.js';
import type { CodeSnapshots } from '../code-context/snapshot/code-snapshots.js';
import type { ReadingHosts } from '../code-hosts/code-hosts.js';
import type { PullRequest } from '../db/schema/index.js';
import type { UserRepository } from '../repositories/user-repository.js';

/**
 * A pull request's code at its head commit outside the review pipeline (the chat's code tools):
 * the same snapshots as the reviews (one cache folder, one in-process index per commit), so a chat
 * about a reviewed pull request reads what its review read, without fetching it again.
 */
export class PullRequestCode {
  constructor(
    private readonly deps: {
      snapshots: CodeSnapshots;
      users: UserRepository;
      /** The change's host, whose reader gives the code with the diff's credentials (decisions.md §11). */
      hosts: () => ReadingHosts;
    },
  ) {}

  /**
   * The head commit's code. No changed paths are given: over the snapshot cap the files are read
   * one by one as they are asked for.
   */
  async headOf(pr: PullRequest): Promise<CodeIndex> {
    const owner = await this.deps.users.findById(pr.userId);
    const reader = await this.deps.hosts().reader(pr, owner);
    return this.deps.snapshots.open(reader.snapshotSource(), pr.headSha, []);
  }
}
