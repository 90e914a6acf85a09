import { outlineFile } from './outline-file.js';
import type { OutlineResult } from './outline-types.js';
import { readPacked, type PackedFile } from './snapshot/repository-snapshot.js';

/** A file to outline: its text, or its place in a snapshot's pack (read by the thread that outlines it). */
export type OutlineSource = string | PackedFile;

/** The outline of a text or of a packed file; null when the file cannot be read (as `RepositorySnapshot.readFile` gives). */
export async function outlineSource(path: string, source: OutlineSource): Promise<OutlineResult | null> {
  const text = typeof source === 'string' ? source : readPacked(source);
  return text === null ? null : outlineFile(path, text);
}
