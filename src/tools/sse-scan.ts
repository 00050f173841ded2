/**
 * Reads the lines of a server-sent event stream as its bytes pass, without holding them: the event
 * ids it sets (what a client resumes from with `Last-Event-ID`) and the size of the event being read
 * (the SDK's SSE parser holds a whole event in memory before it hands it on). One pass over each byte,
 * and at most one id line kept, so a stream of any size costs nothing but the time to look at it
 * (`mcp-read-cap.ts` uses it; the stream format is the WHATWG "server-sent events" one).
 */

/** The longest `id:` line, in bytes, whose id is reported; a longer one is read past. */
export const MAX_SSE_ID_LINE_BYTES = 1024;

const LF = 0x0a;
const CR = 0x0d;
/** `i`, `d`, `:`: the start of an id line. */
const ID_FIELD = [0x69, 0x64];
const COLON = 0x3a;
const SPACE = 0x20;

/** Scans an SSE byte stream chunk by chunk (see the module doc). */
export class SseScanner {
  /** Bytes of the event being read (since the last blank line), line ends not counted. */
  private eventBytes = 0;
  /** Bytes of the line being read. */
  private lineBytes = 0;
  /** The line so far while it may still be an id line short enough to report; undefined once it cannot. */
  private head: number[] | undefined = [];
  /** Whether the last byte was a CR (a CRLF is one line end). */
  private afterCr = false;

  /**
   * Reads `chunk`; `onId` is told each id an `id` line sets, as the line ends. Returns the largest
   * size the event being read reached within the chunk.
   */
  push(chunk: Uint8Array, onId: (id: string) => void): number {
    let largest = this.eventBytes;
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i];
      if (byte === LF && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        this.endLine(onId);
        continue;
      }
      this.lineBytes += 1;
      this.eventBytes += 1;
      if (this.eventBytes > largest) largest = this.eventBytes;
      this.keep(byte);
    }
    return largest;
  }

  /** A byte of the line: kept while the line may still be a reportable id line. */
  private keep(byte: number): void {
    const head = this.head;
    if (head === undefined) return;
    const at = head.length;
    const fits = at < ID_FIELD.length ? byte === ID_FIELD[at] : at > ID_FIELD.length || byte === COLON;
    if (!fits || at >= MAX_SSE_ID_LINE_BYTES) this.head = undefined;
    else head.push(byte);
  }

  private endLine(onId: (id: string) => void): void {
    if (this.lineBytes === 0) {
      // a blank line ends the event
      this.eventBytes = 0;
    } else if (this.head !== undefined && this.head.length >= ID_FIELD.length) {
      // `id`, `id:value` or `id: value` (one space after the colon is not part of the value)
      const value = this.head.slice(ID_FIELD.length + 1);
      if (value[0] === SPACE) value.shift();
      const id = Buffer.from(value).toString('utf8');
      // an id with a NUL is ignored, as a browser's EventSource ignores it
      if (!id.includes('\u0000')) onId(id);
    }
    this.lineBytes = 0;
    this.head = [];
  }
}
