/**
 * Progress on stderr, never stdout (which holds only the result): a bar redrawn in place on a
 * terminal, plain lines otherwise (a CI log, a pipe).
 */
export class Progress {
  private drawn = false;
  private lastPlain = '';

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly tty = Boolean(process.stderr.isTTY),
  ) {}

  note(message: string): void {
    this.clear();
    this.stream.write(`${message}\n`);
  }

  chunks(done: number, total: number): void {
    if (!this.tty) {
      const line = `Reviewed ${done} of ${total} chunk${total === 1 ? '' : 's'}`;
      if (line !== this.lastPlain) this.stream.write(`${line}\n`);
      this.lastPlain = line;
      return;
    }
    const width = 24;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    this.stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} chunks`);
    this.drawn = true;
  }

  /** Ends a bar's line before anything else is written. */
  clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
