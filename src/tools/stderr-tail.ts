/**
 * A stdio server's stderr, read line by line. It must be read: a server that writes more than the pipe
 * holds blocks until someone does, and its calls then hang. Each line goes to the worker log with the
 * server's name, at most {@link STDERR_LOG_LIMIT} lines a second (a server that wrote 200 MB of stderr
 * once made 42 MB of worker log); lines over the limit are counted, and the count is logged when the
 * next window opens (at the next line after it) and when the stream is flushed. The last few lines
 * are kept whatever the limit, so an error about the server (it exited while starting, say) can show
 * what it said.
 */

/**
 * How much of a server's stderr is kept for error messages.
 * @internal exported for tests
 */
export const STDERR_TAIL = { lines: 10, lineChars: 300 } as const;

/** How many stderr lines of one server reach the worker log. */
export const STDERR_LOG_LIMIT = { linesPerSecond: 20 } as const;

const WINDOW_MS = 1000;

/** Where a server's stderr goes in the worker log. */
interface StderrLog {
  /** A line within the limit. */
  line(line: string): void;
  /** `count` lines since the last report were over the limit and not logged. */
  notLogged(count: number): void;
}

/**
 * Collects complete lines from chunks, keeps the last {@link STDERR_TAIL} lines, and logs them within
 * {@link STDERR_LOG_LIMIT} (windows of a second, each opened by the first line after the previous one
 * ended; `now` is injected so tests can drive the clock).
 */
export class StderrTail {
  private partial = '';
  private readonly last: string[] = [];
  private windowStart = Number.NEGATIVE_INFINITY;
  private loggedInWindow = 0;
  private notLogged = 0;

  constructor(
    private readonly log: StderrLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Feeds a chunk of stderr. */
  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const lines = text.split(/\r?\n/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
    // a line that never ends still reaches the log, in pieces
    if (this.partial.length > 4 * STDERR_TAIL.lineChars) this.endPartial();
  }

  /** Emits a pending unterminated line and the count of lines not logged (when the stream ends). */
  flush(): void {
    this.endPartial();
    this.reportNotLogged();
  }

  /** The last lines, oldest first. */
  lines(): string[] {
    return [...this.last];
  }

  private endPartial(): void {
    if (this.partial !== '') this.line(this.partial);
    this.partial = '';
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    const cut = line.length > STDERR_TAIL.lineChars ? `${line.slice(0, STDERR_TAIL.lineChars)}…` : line;
    this.last.push(cut);
    if (this.last.length > STDERR_TAIL.lines) this.last.shift();
    this.logWithinLimit(cut);
  }

  private logWithinLimit(line: string): void {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.reportNotLogged();
      this.windowStart = now;
      this.loggedInWindow = 0;
    }
    if (this.loggedInWindow < STDERR_LOG_LIMIT.linesPerSecond) {
      this.loggedInWindow += 1;
      this.log.line(line);
    } else {
      this.notLogged += 1;
    }
  }

  private reportNotLogged(): void {
    if (this.notLogged === 0) return;
    const count = this.notLogged;
    this.notLogged = 0;
    this.log.notLogged(count);
  }
}
