/**
 * Command-line flags, read with Node's own `util.parseArgs` (its tokens, so troupe can word the usage
 * errors itself): `--name value`, `--name=value`, boolean `--flag`, `-h`, positionals and `--` to end
 * flags. Flags are declared per command; an unknown flag is a usage error with a "did you mean" hint.
 */
import { parseArgs as parseTokens } from 'node:util';
import { closest } from '../core/config/did-you-mean';
import { CLI_TEXTS } from './texts';

/** How a flag takes its value. */
type FlagKind = 'string' | 'boolean';

/** The flags a command accepts, by name without dashes. */
export type FlagSpec = Readonly<Record<string, FlagKind>>;

/** Parsed command line of one command. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean>;
}

/** Parse outcome: the args, or a usage error message. */
type ParseResult = { ok: true; args: ParsedArgs } | { ok: false; error: string };

/** Parse `argv` (the words after the command name) against `spec`. `-h` is `--help` when declared. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParseResult {
  const options = Object.fromEntries(
    Object.entries(spec).map(([name, type]) => [name, name === 'help' ? { type, short: 'h' } : { type }]),
  );
  const { tokens } = parseTokens({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  const args: ParsedArgs = { positionals: [], flags: Object.create(null) as Record<string, string | boolean> };
  for (const token of tokens) {
    if (token.kind === 'positional') {
      args.positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const kind = Object.prototype.hasOwnProperty.call(spec, token.name) ? spec[token.name] : undefined;
    if (kind === undefined || (token.name === 'help' && token.rawName !== '--help' && token.rawName !== '-h')) {
      const near = closest(token.name, Object.keys(spec));
      return { ok: false, error: CLI_TEXTS.unknownFlag(token.rawName, near ? ` (did you mean "--${near}"?)` : '') };
    }
    if (kind === 'boolean') {
      if (token.value !== undefined) return { ok: false, error: CLI_TEXTS.flagTakesNoValue(token.name) };
      args.flags[token.name] = true;
      continue;
    }
    // a value that looks like the next flag means the value was forgotten
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      return { ok: false, error: CLI_TEXTS.flagNeedsValue(token.name) };
    }
    args.flags[token.name] = token.value;
  }
  return { ok: true, args };
}

/** The value of a string flag, if given. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** Whether a boolean flag was given. */
export function booleanFlag(args: ParsedArgs, name: string): boolean {
  return args.flags[name] === true;
}
