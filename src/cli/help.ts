/** `troupe help [command]`: the command list, or one command's usage and options. */
import type { ParsedArgs } from './args';
import { COMMANDS, type CommandSpec } from './commands';
import { didYouMean } from '../core/config/did-you-mean';
import { err, out } from './io';
import { CLI_TEXTS } from './texts';

/** The general help text. */
export function helpText(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  const rows = names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`);
  return [CLI_TEXTS.helpTitle, '', CLI_TEXTS.helpUsage, '', CLI_TEXTS.helpCommands, ...rows, '', CLI_TEXTS.helpMore].join('\n');
}

/** One command's usage text. */
export function commandHelp(spec: CommandSpec): string {
  const flags = Object.entries(spec.flags).map(([f, kind]) => `  --${f}${kind === 'string' ? ' <value>' : ''}`);
  return [CLI_TEXTS.usageLine(spec.usage), '', spec.summary, ...(flags.length ? ['', CLI_TEXTS.helpFlags, ...flags] : [])].join('\n');
}

/** Print help; exit 1 for an unknown command name. */
export async function run(args: ParsedArgs): Promise<number> {
  const name = args.positionals[0];
  if (name === undefined) {
    out(helpText());
    return 0;
  }
  const spec = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!spec) {
    err(CLI_TEXTS.unknownCommand(name, didYouMean(name, Object.keys(COMMANDS))));
    return 1;
  }
  out(commandHelp(spec));
  return 0;
}
