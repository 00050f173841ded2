/** Small formatting helpers shared by every user-visible text catalog. */

/** `1 agent call`, `2 agent calls`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * `text` as lines of at most `width` characters: longer lines fold onto continuation lines, nothing
 * is cut. For values a human must read whole (the arguments of a call waiting for approval).
 */
export function foldLines(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line.length <= width) {
      lines.push(line);
      continue;
    }
    for (let at = 0; at < line.length; at += width) lines.push(line.slice(at, at + width));
  }
  return lines;
}

/** JSON text pretty-printed (2 spaces); text that is not JSON as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Characters of a text {@link brief} keeps by default: a call's arguments and result in the transcript and `troupe run` lines. */
export const BRIEF_CHARS = 160;

/** A text in brief: whitespace collapsed, at most `chars` characters. */
export function brief(text: string, chars: number = BRIEF_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars - 1)}…` : flat;
}
