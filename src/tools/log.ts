/**
 * Where the tools library writes what a worker operator should see: server stderr lines, protocol
 * noise, reconnections. The worker passes its own logger; the default writes lines to stderr.
 */
import { printable } from '../core/text/printable';

/** A minimal logger (Temporal's worker logger and `console` both fit). */
export interface ToolsLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** One message as a line on stderr, printable: a server's stderr and errors can carry escape sequences. */
const line = (m: string) => void process.stderr.write(`${printable(m)}\n`);

/** Writes each message as one line on the process's stderr. */
export const stderrLogger: ToolsLogger = { info: line, warn: line, error: line };
