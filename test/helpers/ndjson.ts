/** Parses a streamed NDJSON body line by line, as the bytes arrive. */
export async function* ndjsonLines(response: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
    }
  }
  if (buffer.trim()) throw new Error(`unterminated last line: ${buffer}`);
}

/** All the lines of a streamed answer. */
export async function readAll(response: Response): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  for await (const line of ndjsonLines(response)) lines.push(line);
  return lines;
}
