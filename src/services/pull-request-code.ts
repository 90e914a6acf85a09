import type { CodeIndex } from '../code-context/code-index.js';
import type { CodeSnapshots } from '../code-context/snapshot/code-snapshots.js';
import type { SnapshotSource } from '../code-context/snapshot/snapshot-source.js';
import type { PullRequest, User } from '../db/schema/index.js';
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
      /** Where the code comes from, read with the pull request's token (decisions.md §11). */
      sourceFor: (pr: PullRequest, owner: User | undefined) => SnapshotSource;
    },
  ) {}

  /**
   * The head commit's code. No changed paths are given: over the snapshot cap the files are read
   * one by one as they are asked for.
   */
  async headOf(pr: PullRequest): Promise<CodeIndex> {
    const owner = await this.deps.users.findById(pr.userId);
    return this.deps.snapshots.open(this.deps.sourceFor(pr, owner), pr.headSha, []);
  }
}
