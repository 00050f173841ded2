/**
 * Output for CLI commands: whole lines to stdout/stderr (tests capture `process.stdout.write`). This
 * is the one door model and tool text passes to reach a terminal (docs/cli.md, "What reaches your
 * terminal"): every line is made printable (`core/text/printable.ts`), wherever it goes, since a pipe
 * often ends on a terminal too (`less`, a saved log, a CI page); `--json` documents are exact JSON,
 * with what a terminal would act on escaped; and the one exact text, a run's final text sent to a
 * pipe, is written as it is.
 */
import { printable, printableJson } from '../core/text/printable';

const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** Write `text`, printable, and a newline to stdout. */
export function out(text: string): void {
  process.stdout.write(line(printable(text)));
}

/** Write `text`, printable, and a newline to stderr. */
export function err(text: string): void {
  process.stderr.write(line(printable(text)));
}

/** Write `value` as one line of JSON to stdout: exact, with what a terminal would act on escaped. */
export function outJson(value: unknown): void {
  process.stdout.write(`${printableJson(value)}\n`);
}

/** Write `text` exactly as it is, and a newline, to stdout: only for a run's final text sent to a pipe. */
export function outExact(text: string): void {
  process.stdout.write(line(text));
}
