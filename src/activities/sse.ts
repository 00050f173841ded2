/**
 * A decoder of server-sent events (the WHATWG `text/event-stream` format) as chat-completions
 * endpoints send them: `data:` lines joined by newlines, an optional `event:` name, a blank line
 * ending each event, `:` comments ignored, lines ended by CRLF, LF or CR. Text in, events out, so
 * the streamed-call reader (./responses.ts) and its tests feed it whatever the network delivers.
 */

/** One event of the stream. */
export interface SseEvent {
  /** The `event:` field, or undefined for the default `message` event. */
  event?: string;
  data: string;
}

/** Decodes text pushed in pieces of any size into complete events. */
export class SseDecoder {
  private buffer = '';
  private data: string[] = [];
  private event: string | undefined;
  /** The previous piece ended in CR: a LF opening the next one belongs to it. */
  private pendingCr = false;

  /** Adds a piece of the stream; returns the events it completed. */
  push(text: string): SseEvent[] {
    let piece = text;
    if (this.pendingCr && piece.startsWith('\n')) piece = piece.slice(1);
    this.pendingCr = false;
    this.buffer += piece;
    const events: SseEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end < 0) break;
      // a CR at the very end may be half of a CRLF: wait for the next piece to tell
      const crlf = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n';
      if (this.buffer[end] === '\r' && end === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (crlf ? 2 : 1));
      const done = this.line(line);
      if (done) events.push(done);
    }
    return events;
  }

  /** Ends the stream: an event not yet closed by a blank line is dispatched, as a browser would not; servers that omit the last blank line exist. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer !== '') {
      const done = this.line(this.buffer);
      this.buffer = '';
      if (done) events.push(done);
    }
    const last = this.line('');
    if (last) events.push(last);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = undefined;
        return undefined;
      }
      const event: SseEvent = { data: this.data.join('\n'), ...(this.event !== undefined ? { event: this.event } : {}) };
      this.data = [];
      this.event = undefined;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    return undefined;
  }
}

/** Whether a body that arrived without an event-stream content type is SSE all the same (it opens with a field). */
export function looksLikeSse(text: string): boolean {
  return /^\s*(data|event|id|retry):/.test(text) || /^\s*:/.test(text);
}
