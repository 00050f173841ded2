/**
 * Where the tools library writes what a worker operator should see: server stderr lines, protocol
 * noise, reconnections. The worker passes its own logger; the default writes lines to stderr.
 */

/** A minimal logger (Temporal's worker logger and `console` both fit). */
export interface ToolsLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes each message as one line on the process's stderr. */
export const stderrLogger: ToolsLogger = {
  info: (m) => process.stderr.write(`${m}\n`),
  warn: (m) => process.stderr.write(`${m}\n`),
  error: (m) => process.stderr.write(`${m}\n`),
};
