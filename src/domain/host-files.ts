/** Reading one file of a change's repository through its code host, as `.ai-review.yml`'s loader and the code-host seam both speak of it. */

/**
 * A file at a ref; null when it does not exist there. A host refusing the read (no permission for
 * contents) throws `FileRefusedError`, so `.ai-review.yml` falls back to its defaults and says so.
 */
export interface FileReader {
  fileAt(path: string, ref: string): Promise<string | null>;
}

export class FileRefusedError extends Error {
  override name = 'FileRefusedError';
  constructor(
    readonly status: number,
    readonly host: string,
  ) {
    super(`${host} answered ${status}`);
  }
}
