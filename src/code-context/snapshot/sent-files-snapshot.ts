import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RepositorySnapshot } from './repository-snapshot.js';
import { safeRepositoryPath } from './snapshot-paths.js';

/** A file sent with a change: its head version, path relative to the repository. */
export interface SentFileText {
  path: string;
  content: string;
}

/**
 * The code of a change whose files came with it (a diff review, decisions.md §17): written to a
 * folder of its own under `root` and read as a snapshot of those files alone (`files` mode: what
 * was not sent is not there, and no symbol index pretends to cover the repository). Paths that
 * would leave the folder are dropped. `remove` deletes the folder once the review is done.
 */
export async function snapshotOfSentFiles(root: string, files: readonly SentFileText[]): Promise<{ snapshot: RepositorySnapshot; remove: () => Promise<void> }> {
  const folder = join(root, randomUUID());
  const kept = new Map<string, string>();
  for (const file of files) {
    const safe = safeRepositoryPath(file.path);
    if (safe !== undefined) kept.set(safe, file.content);
  }
  await mkdir(folder, { recursive: true });
  const remove = () => rm(folder, { recursive: true, force: true });
  const listed: Array<{ path: string; size: number }> = [];
  for (const [path, content] of kept) {
    const target = join(folder, path);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      listed.push({ path, size: Buffer.byteLength(content) });
    } catch {
      // A path that is also another sent path's folder (`a` and `a/b`): that file is left out, not the review.
    }
  }
  return { snapshot: new RepositorySnapshot('files', 'sent', folder, listed, undefined), remove };
}
