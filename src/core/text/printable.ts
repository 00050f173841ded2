/**
 * Model text made safe to print on a terminal. A model's output is untrusted: an escape sequence in
 * it could move the cursor, recolour or clear the screen, retitle the window or hide text, and a
 * bidirectional override could reorder what a reader sees. Pure.
 */

/** ANSI escape sequences: CSI (`ESC [` or 0x9B), OSC, DCS/SOS/PM/APC strings, and two-character escapes. */
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[ -~]/g;

/** C0 and C1 controls except the newline, DEL, bidirectional marks and overrides, and lone surrogates. */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` without escape sequences and control characters: line ends become `\n` (a bare carriage
 * return too, since it would overwrite the line), a tab a space, everything else unprintable goes.
 */
export function printable(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCES, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .replace(UNPRINTABLE, '');
}

/** The last line of `text` that is not blank, printable, its runs of spaces folded ('' when none). */
export function lastLine(text: string): string {
  const lines = printable(text).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].replace(/\s+/g, ' ').trim();
    if (line) return line;
  }
  return '';
}

/**
 * The end of `line` in at most `width` characters (code points), `…` first when cut: for text that
 * grows at its end, the newest words stay in view.
 */
export function tailOf(line: string, width: number): string {
  const chars = [...line];
  if (chars.length <= width) return line;
  return `…${chars.slice(chars.length - Math.max(1, width - 1)).join('')}`;
}
