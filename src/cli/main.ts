/**
 * The `troupe` CLI entry: `main(argv)` looks the command up in the command table
 * (`src/cli/commands.ts`), parses its flags, runs it and returns the exit code. It never throws and
 * never prints a stack trace: usage errors and failures exit 1 with a one-line message.
 */
import { parseArgs, type FlagSpec } from './args';
import { COMMANDS } from './commands';
import { commandHelp, helpText } from './help';
import { err, out } from './io';
import { CLI_TEXTS } from './texts';
import { didYouMean } from '../core/config/did-you-mean';
import { shutdownTracing } from '../telemetry/tracing';

/** Run the CLI with `argv` (without `node` and the script). Resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    out(helpText());
    return 1;
  }
  if (name === '--help' || name === '-h') return main(['help', ...rest]);
  // own rows only: `constructor` or `__proto__` must be unknown commands, not Object's members
  const spec = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!spec) {
    err(CLI_TEXTS.unknownCommand(name, didYouMean(name, Object.keys(COMMANDS))));
    err(CLI_TEXTS.seeHelp);
    return 1;
  }
  const flags: FlagSpec = { ...spec.flags, help: 'boolean' };
  const parsed = parseArgs(rest, flags);
  const usageError = (message: string): number => {
    err(CLI_TEXTS.commandFailed(name, message));
    err(CLI_TEXTS.usageLine(spec.usage));
    return 1;
  };
  if (!parsed.ok) return usageError(parsed.error);
  if (parsed.args.flags.help === true) {
    out(commandHelp(spec));
    return 0;
  }
  const n = parsed.args.positionals.length;
  if (n < spec.positionals.min || n > spec.positionals.max) {
    return usageError(CLI_TEXTS.positionals(spec.positionals.min, spec.positionals.max, n));
  }
  try {
    const command = await spec.load();
    return await command.run(parsed.args);
  } catch (e) {
    err(CLI_TEXTS.commandFailed(name, e instanceof Error ? e.message : String(e)));
    return 1;
  } finally {
    // spans still held are sent before the process exits (nothing to do when it does not trace)
    await shutdownTracing();
  }
}
