import { parentPort } from 'node:worker_threads';
import { outlineSource, type OutlineSource } from './outline-source.js';
import type { OutlineResult } from './outline-types.js';
import { unpackArchive, type UnpackLimits, type UnpackResult } from './snapshot/unpack-archive.js';

/** Work for one of `CodeWorkers`' threads: a file to outline, or an archive to unpack into its pack. */
export type CodeWork =
  | { kind: 'outline'; path: string; source: OutlineSource }
  | { kind: 'unpack'; archive: ReadableStream<Uint8Array>; pack: string; limits: UnpackLimits };

export type CodeWorkRequest = CodeWork & { id: number };

/** The answer; an error keeps its class's name (`ArchiveTooLargeError` is told apart by it). */
export type CodeWorkReply = { id: number; result: OutlineResult | null | UnpackResult } | { id: number; error: { name: string; message: string } };

// A parse is synchronous and bounded (outlineFile's limits); an unpacking awaits its stream, so
// outlines asked for meanwhile are answered between its chunks.
parentPort!.on('message', (request: CodeWorkRequest) => {
  const work = request.kind === 'outline' ? outlineSource(request.path, request.source) : unpackArchive(request.archive, request.pack, request.limits);
  work.then(
    (result) => parentPort!.postMessage({ id: request.id, result } satisfies CodeWorkReply),
    (error: unknown) => {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      parentPort!.postMessage({ id: request.id, error: { name, message } } satisfies CodeWorkReply);
    },
  );
});

