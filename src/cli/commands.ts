/**
 * The CLI's command table (SPEC §9). Each command lives in `src/cli/<name>.ts` and exports
 * `run(args)`; it is loaded only when used, so `troupe validate` does not load Temporal. To add a
 * command, add a row here.
 */
import type { FlagSpec, ParsedArgs } from './args';
import { RUN_COMMANDS } from './run-commands';

/** A command module: runs with parsed args, resolves to the exit code. */
export interface CommandModule {
  run(args: ParsedArgs): Promise<number>;
}

/** One row of the command table. */
export interface CommandSpec {
  /** One line for `troupe help`. */
  summary: string;
  /** Usage line, e.g. `troupe graph <role.yaml> [--format mermaid|dot]`. */
  usage: string;
  /** Accepted flags (`help` is added for every command). */
  flags: FlagSpec;
  /** Allowed number of positional arguments. */
  positionals: { min: number; max: number };
  load(): Promise<CommandModule>;
}

/**
 * Load a command module on first use. `require` rather than `import()`: under tsx's CommonJS
 * loader a dynamic import goes through Node's ESM resolver, which needs file extensions.
 */
function lazy(id: string): Promise<CommandModule> {
  return new Promise((resolve) => resolve(require(id) as CommandModule));
}

/** The commands, in help order. */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  ...RUN_COMMANDS,
  validate: {
    summary: 'Check a role.yaml: located errors and warnings, exit 1 on errors',
    usage: 'troupe validate <role.yaml> [--plugins file] [--json]',
    flags: { plugins: 'string', json: 'boolean' },
    positionals: { min: 1, max: 1 },
    load: () => lazy('./validate'),
  },
  graph: {
    summary: 'Draw the compiled graph as Mermaid (default) or Graphviz DOT',
    usage: 'troupe graph <role.yaml> [--format mermaid|dot] [--plugins file]',
    flags: { format: 'string', plugins: 'string' },
    positionals: { min: 1, max: 1 },
    load: () => lazy('./graph'),
  },
  help: {
    summary: 'List the commands, or show the usage of one',
    usage: 'troupe help [command]',
    flags: {},
    positionals: { min: 0, max: 1 },
    load: () => lazy('./help'),
  },
};
