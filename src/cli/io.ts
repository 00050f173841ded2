/** Output for CLI commands: whole lines to stdout/stderr (tests capture `process.stdout.write`). */

/** Write `text` and a newline to stdout. */
export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Write `text` and a newline to stderr. */
export function err(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}
