/** `troupe help [command]`: the command list, or one command's usage and options. */
import type { ParsedArgs } from './args';
import { COMMANDS, type CommandSpec } from './commands';
import { didYouMean } from '../core/config/did-you-mean';
import { err, out } from './io';
import { CLI_TEXT } from './texts';

/** The general help text. */
export function helpText(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  const rows = names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`);
  return [CLI_TEXT.helpTitle, '', CLI_TEXT.helpUsage, '', CLI_TEXT.helpCommands, ...rows, '', CLI_TEXT.helpMore].join('\n');
}

/** One command's usage text. */
export function commandHelp(spec: CommandSpec): string {
  const flags = Object.entries(spec.flags).map(([f, kind]) => `  --${f}${kind === 'string' ? ' <value>' : ''}`);
  return [CLI_TEXT.usageLine(spec.usage), '', spec.summary, ...(flags.length ? ['', CLI_TEXT.helpFlags, ...flags] : [])].join('\n');
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
    err(CLI_TEXT.unknownCommand(name, didYouMean(name, Object.keys(COMMANDS))));
    return 1;
  }
  out(commandHelp(spec));
  return 0;
}
