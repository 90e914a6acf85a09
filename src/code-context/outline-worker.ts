import { parentPort } from 'node:worker_threads';
import { outlineFile } from './outline-file.js';

/** One file to outline, from `OutlinePool`. */
export interface OutlineRequest {
  id: number;
  path: string;
  text: string;
}

export type OutlineReply = { id: number; result: Awaited<ReturnType<typeof outlineFile>> } | { id: number; error: string };

// Parsing is synchronous: the worker outlines one file at a time, each within outlineFile's limits.
parentPort!.on('message', (request: OutlineRequest) => {
  outlineFile(request.path, request.text).then(
    (result) => parentPort!.postMessage({ id: request.id, result } satisfies OutlineReply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies OutlineReply),
  );
});
