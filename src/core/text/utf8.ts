/**
 * UTF-8 sizes and cuts. Texts that travel in workflow state, history or an HTTP request are bounded
 * in bytes, and a cut text ends with a marker that says how much was removed, so a reader (human or
 * model) never mistakes a cut text for a whole one. Uses the platform's `TextEncoder`/`TextDecoder`,
 * which the Temporal workflow sandbox provides too.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The marker that ends a cut text; `removedBytes` is the number of UTF-8 bytes removed.
 * @internal exported for tests
 */
export const truncationMarker = (removedBytes: number): string => `[troupe: truncated ${removedBytes} bytes]`;

/** UTF-8 bytes of a text (a lone surrogate counts as U+FFFD, as `TextEncoder` encodes it). */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * UTF-8 length of a text in bytes, counted without encoding it (a lone surrogate counts as U+FFFD,
 * as `TextEncoder` encodes it). Encoding allocates a byte array per text, and prompts, results and
 * the current details are measured at every step.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isPairAt(text, i)) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether `text` has a surrogate pair (one code point above U+FFFF) at index `i`. */
export function isPairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
}

/** The most UTF-8 bytes a text of `length` UTF-16 code units can take (3 per unit). */
export function maxUtf8Bytes(length: number): number {
  return 3 * length;
}

/** Whether `text` takes at most `maxBytes` in UTF-8; a short text is not counted at all. */
export function fitsUtf8(text: string, maxBytes: number): boolean {
  return maxUtf8Bytes(text.length) <= maxBytes || utf8ByteLength(text) <= maxBytes;
}

/** A text bounded in bytes, and how many bytes the cut removed (0 when it fitted). */
interface CutText {
  text: string;
  droppedBytes: number;
}

/**
 * Cuts a text to at most `maxBytes` UTF-8 bytes, marker included, at a character boundary: the kept
 * prefix, a newline and `[troupe: truncated N bytes]`. A text that fits comes back unchanged; when
 * not even the marker fits, the marker alone is returned. `priorDroppedBytes` (an earlier cut of the
 * same text) is added to N.
 */
export function cutUtf8(text: string, maxBytes: number, priorDroppedBytes = 0): CutText {
  if (fitsUtf8(text, maxBytes)) return { text, droppedBytes: 0 };
  const bytes = encoder.encode(text);
  // the marker's width depends on the count it shows, which is at most this
  const markerBytes = 1 + truncationMarker(bytes.length + priorDroppedBytes).length;
  let keep = Math.max(0, maxBytes - markerBytes);
  while (keep > 0 && (bytes[keep] & 0xc0) === 0x80) keep -= 1;
  const dropped = bytes.length - keep;
  const marker = truncationMarker(dropped + priorDroppedBytes);
  return { text: keep === 0 ? marker : `${decoder.decode(bytes.subarray(0, keep))}\n${marker}`, droppedBytes: dropped };
}

/** `cutUtf8` when only the text is needed. */
export function capText(text: string, maxBytes: number, priorDroppedBytes = 0): string {
  return cutUtf8(text, maxBytes, priorDroppedBytes).text;
}

const TRAILING_MARKER = /\n?\[troupe: truncated (\d+) bytes\]$/;

/**
 * `capText` for a text that may already end in a truncation marker (the agent activity's own cut):
 * that marker is replaced, and the new one counts the bytes both cuts removed.
 */
export function recapText(text: string, maxBytes: number): string {
  if (fitsUtf8(text, maxBytes)) return text;
  const marker = TRAILING_MARKER.exec(text);
  return marker ? capText(text.slice(0, marker.index), maxBytes, Number(marker[1])) : capText(text, maxBytes);
}

/**
 * Cuts a label to at most `maxBytes` UTF-8 bytes at a character boundary, ending it with `…` when cut
 * (for labels where a truncation marker would take most of the room).
 */
export function shortenUtf8(text: string, maxBytes: number): string {
  if (fitsUtf8(text, maxBytes)) return text;
  const bytes = encoder.encode(text);
  let keep = Math.max(0, maxBytes - 3); // `…` is 3 bytes
  while (keep > 0 && (bytes[keep] & 0xc0) === 0x80) keep -= 1;
  return `${decoder.decode(bytes.subarray(0, keep))}…`;
}
