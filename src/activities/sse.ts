/**
 * A decoder of server-sent events (the WHATWG `text/event-stream` format) as chat-completions
 * endpoints send them: `data:` lines joined by newlines, an optional `event:` name, a blank line
 * ending each event, `:` comments ignored, lines ended by CRLF, LF or CR, one leading byte-order mark
 * skipped. Bytes in, events out, so the streamed-call reader (./responses.ts) and its tests feed it
 * whatever the network delivers.
 *
 * Linear in the bytes received: each piece is searched for line ends once, from where the last
 * search stopped, and a line's bytes are kept as the pieces they came in and joined once, when the
 * line ends (UTF-8 never puts a CR or LF byte inside a character, so a line decodes alone). An event
 * or line that grows past `maxEventBytes` throws {@link SseEventTooLargeError} at once, holding no
 * more than that: an endpoint cannot make the worker buffer a line without end.
 */

/** One event of the stream. */
export interface SseEvent {
  /** The `event:` field, or undefined for the default `message` event. */
  event?: string;
  data: string;
}

/** An event (or one line) grew past the decoder's cap before it ended. */
export class SseEventTooLargeError extends Error {
  override readonly name = 'SseEventTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`a server-sent event grew past ${maxBytes} bytes`);
  }
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * What the decoder has done so far, in bytes: `scanned` by its searches for line ends, `copied` when
 * it joined a line's pieces. Each is at most the bytes pushed (twice for `scanned`: one search for
 * CR, one for LF), whatever the sizes of the pieces.
 * @internal for tests
 */
export interface SseWork {
  pushed: number;
  scanned: number;
  copied: number;
}

/** Decodes bytes (or text) pushed in pieces of any size into complete events. */
export class SseDecoder {
  /** The current line's bytes so far, as the pieces they came in. */
  private pieces: Uint8Array[] = [];
  private lineBytes = 0;
  /** The current event's `data` lines, and their bytes with the newlines that will join them. */
  private data: string[] = [];
  private dataBytes = 0;
  private event: string | undefined;
  /** The previous piece ended in CR: a LF opening the next one belongs to it. */
  private pendingCr = false;
  /** Bytes of a leading byte-order mark still to be checked (the stream's first three). */
  private bomAt = 0;
  private readonly utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  private readonly encoder = new TextEncoder();
  private readonly counted: SseWork = { pushed: 0, scanned: 0, copied: 0 };

  /** @param maxEventBytes the most bytes one event (its data lines) or one line may hold */
  constructor(private readonly maxEventBytes: number = Number.POSITIVE_INFINITY) {}

  /** @internal for tests: see {@link SseWork}. */
  get work(): Readonly<SseWork> {
    return this.counted;
  }

  /** Adds a piece of the stream; returns the events it completed. Throws {@link SseEventTooLargeError} past the cap. */
  push(piece: Uint8Array | string): SseEvent[] {
    const bytes = typeof piece === 'string' ? this.encoder.encode(piece) : piece;
    this.counted.pushed += bytes.length;
    let pos = this.skipBom(bytes);
    if (this.pendingCr && pos < bytes.length) {
      if (bytes[pos] === LF) pos += 1;
      this.pendingCr = false;
    }
    const events: SseEvent[] = [];
    // the next CR and LF at or after `pos`, each searched for again only once passed (-1: none left)
    let nextCr = this.find(bytes, CR, pos);
    let nextLf = this.find(bytes, LF, pos);
    while (pos < bytes.length) {
      if (nextCr !== -1 && nextCr < pos) nextCr = this.find(bytes, CR, pos);
      if (nextLf !== -1 && nextLf < pos) nextLf = this.find(bytes, LF, pos);
      const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextCr, nextLf);
      if (end === -1) {
        this.keep(bytes.subarray(pos));
        break;
      }
      this.keep(bytes.subarray(pos, end));
      const size = this.lineBytes;
      const done = this.line(this.takeLine(), size);
      if (done) events.push(done);
      pos = end + 1;
      if (bytes[end] === CR) {
        // a CR at the very end may be half of a CRLF: the next piece tells
        if (pos === bytes.length) this.pendingCr = true;
        else if (bytes[pos] === LF) pos += 1;
      }
    }
    return events;
  }

  /** Ends the stream: an event not yet closed by a blank line is dispatched, as a browser would not; servers that omit the last blank line exist. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.lineBytes > 0) {
      const size = this.lineBytes;
      const done = this.line(this.takeLine(), size);
      if (done) events.push(done);
    }
    const last = this.line('', 0);
    if (last) events.push(last);
    return events;
  }

  /** Where `byte` next occurs in `bytes` from `from` (-1: nowhere), counting the bytes searched. */
  private find(bytes: Uint8Array, byte: number, from: number): number {
    const at = bytes.indexOf(byte, from);
    this.counted.scanned += (at === -1 ? bytes.length : at + 1) - from;
    return at;
  }

  /** Skips what is left of a leading byte-order mark; returns where the piece's text starts. */
  private skipBom(bytes: Uint8Array): number {
    let pos = 0;
    while (this.bomAt < BOM.length && pos < bytes.length) {
      if (bytes[pos] !== BOM[this.bomAt]) {
        // not a mark after all: what matched of it was text (a stream never opens so in practice)
        if (this.bomAt > 0) this.keep(Uint8Array.from(BOM.slice(0, this.bomAt)));
        this.bomAt = BOM.length;
        return pos;
      }
      this.bomAt += 1;
      pos += 1;
    }
    return pos;
  }

  /** Keeps a part of the current line, within the cap. */
  private keep(part: Uint8Array): void {
    if (part.length === 0) return;
    this.lineBytes += part.length;
    if (this.lineBytes + this.dataBytes > this.maxEventBytes) throw new SseEventTooLargeError(this.maxEventBytes);
    this.pieces.push(part);
  }

  /** The current line as text, its pieces joined once; the line is then empty. */
  private takeLine(): string {
    const { pieces, lineBytes } = this;
    this.pieces = [];
    this.lineBytes = 0;
    if (pieces.length === 0) return '';
    if (pieces.length === 1) return this.utf8.decode(pieces[0]);
    const joined = new Uint8Array(lineBytes);
    let at = 0;
    for (const p of pieces) {
      joined.set(p, at);
      at += p.length;
    }
    this.counted.copied += lineBytes;
    return this.utf8.decode(joined);
  }

  /** Takes one line of `bytes` bytes: a field, a comment, or the blank line that dispatches the event. */
  private line(line: string, bytes: number): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = undefined;
        return undefined;
      }
      const event: SseEvent = { data: this.data.join('\n'), ...(this.event !== undefined ? { event: this.event } : {}) };
      this.data = [];
      this.dataBytes = 0;
      this.event = undefined;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      // the event holds its data lines (with the field names, and the newlines that will join them)
      this.dataBytes += bytes + 1;
    } else if (field === 'event') this.event = value;
    return undefined;
  }
}

/** Whether a body that arrived without an event-stream content type is SSE all the same (it opens with a field). */
export function looksLikeSse(text: string): boolean {
  return /^\s*(data|event|id|retry):/.test(text) || /^\s*:/.test(text);
}
