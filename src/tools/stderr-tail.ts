/**
 * A stdio server's stderr, read line by line. It must be read: a server that writes more than the pipe
 * holds blocks until someone does, and its calls then hang. Each line goes to the worker log with the
 * server's name, and the last few are kept so an error about the server (it exited while starting,
 * say) can show what it said.
 */

/** How much of a server's stderr is kept for error messages. */
export const STDERR_TAIL = { lines: 10, lineChars: 300 } as const;

/** Collects complete lines from chunks; keeps the last {@link STDERR_TAIL} lines. */
export class StderrTail {
  private partial = '';
  private readonly last: string[] = [];

  constructor(private readonly onLine: (line: string) => void) {}

  /** Feeds a chunk of stderr. */
  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const lines = text.split(/\r?\n/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
    // a line that never ends still reaches the log, in pieces
    if (this.partial.length > 4 * STDERR_TAIL.lineChars) this.flush();
  }

  /** Emits a pending unterminated line (when the stream ends). */
  flush(): void {
    if (this.partial !== '') this.line(this.partial);
    this.partial = '';
  }

  /** The last lines, oldest first. */
  lines(): string[] {
    return [...this.last];
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    const cut = line.length > STDERR_TAIL.lineChars ? `${line.slice(0, STDERR_TAIL.lineChars)}…` : line;
    this.last.push(cut);
    if (this.last.length > STDERR_TAIL.lines) this.last.shift();
    this.onLine(cut);
  }
}
