/**
 * Model and tool text made safe to print on a terminal. A model's output and a tool's result are
 * untrusted: an escape sequence in them could move the cursor, recolour or clear the screen, retitle
 * the window, write the clipboard (OSC 52) or hide text, and a bidirectional override could reorder
 * what a reader sees. Every line the CLI and the worker print passes {@link printable}, and every
 * `--json` document {@link printableJson} (docs/cli.md, "What reaches your terminal"). Pure.
 */

/** ANSI escape sequences: CSI (`ESC [` or 0x9B), OSC, DCS/SOS/PM/APC strings, and two-character escapes. */
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[ -~]/g;

/** C0 and C1 controls except the newline, DEL, bidirectional marks and overrides, and lone surrogates. */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * What JSON text may hold raw that a terminal acts on or reorders: DEL and the C1 controls (`\u009b`
 * opens a CSI sequence on some terminals), the bidirectional marks and overrides, and the line and
 * paragraph separators. `JSON.stringify` already escapes the C0 controls (ESC included) and lone
 * surrogates.
 */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

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

/**
 * `value` as JSON text that is safe on a terminal and still exact: every character a terminal would
 * act on is written as its `\uXXXX` escape, so a reader of the JSON gets the very same strings. Such
 * characters can stand only inside strings, where an escape means the same character.
 */
export function printableJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
