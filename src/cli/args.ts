/**
 * A tiny argv parser shared by the CLI commands (SPEC §9): `--name value`, `--name=value`,
 * boolean `--flag`, positionals, and `--` to end flags. Flags are declared per command; an
 * unknown flag is a usage error (with a "did you mean" hint).
 */
import { closest } from '../core/config/did-you-mean';
import { CLI_TEXT } from './texts';

/** How a flag takes its value. */
export type FlagKind = 'string' | 'boolean';

/** The flags a command accepts, by name without dashes. */
export type FlagSpec = Readonly<Record<string, FlagKind>>;

/** Parsed command line of one command. */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean>;
}

/** Parse outcome: the args, or a usage error message. */
export type ParseResult = { ok: true; args: ParsedArgs } | { ok: false; error: string };

/** Parse `argv` (the words after the command name) against `spec`. `-h` is `--help` when declared. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParseResult {
  const args: ParsedArgs = { positionals: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') {
      args.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (word === '-h' && spec.help === 'boolean') {
      args.flags.help = true;
      continue;
    }
    if (!word.startsWith('-') || word === '-') {
      args.positionals.push(word);
      continue;
    }
    const body = word.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const kind = spec[name];
    if (!word.startsWith('--') || kind === undefined) {
      const near = closest(name, Object.keys(spec));
      return { ok: false, error: CLI_TEXT.unknownFlag(word.split('=')[0], near ? ` (did you mean "--${near}"?)` : '') };
    }
    if (kind === 'boolean') {
      if (eq >= 0) return { ok: false, error: CLI_TEXT.flagTakesNoValue(name) };
      args.flags[name] = true;
      continue;
    }
    if (eq >= 0) {
      args.flags[name] = body.slice(eq + 1);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) return { ok: false, error: CLI_TEXT.flagNeedsValue(name) };
    args.flags[name] = value;
    i++;
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
