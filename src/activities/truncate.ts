/**
 * Byte-bounded text (SPEC §8, §11.5): an agent output larger than the payload budget is cut on a UTF-8
 * character boundary and marked, so an oversized reply never fails the workflow.
 */

/** The marker appended to cut text; `dropped` is the number of UTF-8 bytes removed. */
export const truncationMarker = (dropped: number): string => `[troupe: truncated ${dropped} bytes]`;

/** Result of bounding a text: the text (marker included when cut) and how many bytes were dropped. */
export interface BoundedText {
  text: string;
  droppedBytes: number;
}

/** Cuts `text` so that it, plus `\n` and the marker, fits in `maxBytes` UTF-8 bytes. */
export function truncateUtf8(text: string, maxBytes: number): BoundedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, droppedBytes: 0 };
  // The marker's width depends on the dropped count, which is at most bytes.length.
  const reserve = Buffer.byteLength(`\n${truncationMarker(bytes.length)}`, 'utf8');
  let keep = Math.max(0, maxBytes - reserve);
  while (keep > 0 && (bytes[keep]! & 0xc0) === 0x80) keep -= 1;
  const dropped = bytes.length - keep;
  return { text: `${bytes.subarray(0, keep).toString('utf8')}\n${truncationMarker(dropped)}`, droppedBytes: dropped };
}
