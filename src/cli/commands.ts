/**
 * The CLI's command table. Each command lives in `src/cli/<file>.ts` and exports its runner; it is
 * loaded only when used, so `troupe validate` does not load Temporal. To add a command, add a row here.
 */
import type { FlagSpec, ParsedArgs } from './args';

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

type Runner = (args: ParsedArgs) => Promise<number>;

/**
 * Load a command's runner on first use. `require` rather than `import()`: under tsx's CommonJS
 * loader a dynamic import goes through Node's ESM resolver, which needs file extensions.
 */
function from(id: string, name = 'run'): () => Promise<CommandModule> {
  return () => new Promise((resolve) => resolve({ run: (require(id) as Record<string, Runner>)[name] }));
}

const one = { min: 1, max: 1 };

/** The commands, in help order. */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {

  run: {
    summary: 'Start a run and follow it to its result (exit 0 completed, 2 other status, 1 errors)',
    usage: 'troupe run <role.yaml> [--task T] [--id ID] [--json] [--detach] [--plugins file]',
    flags: { task: 'string', id: 'string', json: 'boolean', detach: 'boolean', plugins: 'string' },
    positionals: one,
    load: from('./run'),
  },
  worker: {
    summary: 'Run a worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TROUPE_TASK_QUEUE, OPENAI_*)',
    usage: 'troupe worker [--plugins file]',
    flags: { plugins: 'string' },
    positionals: { min: 0, max: 0 },
    load: from('./worker'),
  },
  dev: {
    summary: 'Local dev server + Web UI + worker + an example run (offline model without OPENAI_API_KEY)',
    usage: 'troupe dev [role.yaml] [--task T] [--exit]',
    flags: { task: 'string', exit: 'boolean' },
    positionals: { min: 0, max: 1 },
    load: from('./dev'),
  },
  status: {
    summary: "Show a run's phase, position, usage, goal and pending requests",
    usage: 'troupe status <id> [--json]',
    flags: { json: 'boolean' },
    positionals: one,
    load: from('./inspect', 'status'),
  },
  result: {
    summary: 'Wait for a run and print its result',
    usage: 'troupe result <id> [--json]',
    flags: { json: 'boolean' },
    positionals: one,
    load: from('./inspect', 'result'),
  },
  transcript: {
    summary: "Print a run's steps (last 200)",
    usage: 'troupe transcript <id> [--json]',
    flags: { json: 'boolean' },
    positionals: one,
    load: from('./inspect', 'transcript'),
  },
  pause: {
    summary: 'Pause a run: no new wave starts, clocks stop',
    usage: 'troupe pause <id>',
    flags: {},
    positionals: one,
    load: from('./control', 'pause'),
  },
  resume: {
    summary: 'Resume a paused run',
    usage: 'troupe resume <id>',
    flags: {},
    positionals: one,
    load: from('./control', 'resume'),
  },
  stop: {
    summary: 'Stop a run gracefully after in-flight work (cancelled/user_stop)',
    usage: 'troupe stop <id> [--reason R]',
    flags: { reason: 'string' },
    positionals: one,
    load: from('./control', 'stop'),
  },
  cancel: {
    summary: 'Cancel a run now, aborting in-flight calls (cancelled/user_abort)',
    usage: 'troupe cancel <id>',
    flags: {},
    positionals: one,
    load: from('./control', 'cancel'),
  },
  approve: {
    summary: 'Approve a pending request',
    usage: 'troupe approve <id> [--request R] [--note N]',
    flags: { request: 'string', note: 'string' },
    positionals: one,
    load: from('./control', 'approve'),
  },
  reject: {
    summary: 'Reject a pending request with a reason fed back to the agent',
    usage: 'troupe reject <id> [--request R] --reason R',
    flags: { request: 'string', reason: 'string' },
    positionals: one,
    load: from('./control', 'reject'),
  },
  answer: {
    summary: "Answer an agent's clarification request",
    usage: 'troupe answer <id> TEXT [--request R]',
    flags: { request: 'string' },
    positionals: { min: 2, max: 2 },
    load: from('./control', 'answer'),
  },
  message: {
    summary: "Add a user message to the next dispatch (of one agent with --to)",
    usage: 'troupe message <id> TEXT [--to AGENT]',
    flags: { to: 'string' },
    positionals: { min: 2, max: 2 },
    load: from('./control', 'message'),
  },
  signal: {
    summary: "Record a signal in the run's ledger (for signal_observed)",
    usage: 'troupe signal <id> TYPE [--payload JSON]',
    flags: { payload: 'string' },
    positionals: { min: 2, max: 2 },
    load: from('./control', 'signal'),
  },
  validate: {
    summary: 'Check a role.yaml: located errors and warnings, exit 1 on errors',
    usage: 'troupe validate <role.yaml> [--plugins file] [--json]',
    flags: { plugins: 'string', json: 'boolean' },
    positionals: { min: 1, max: 1 },
    load: from('./validate'),
  },
  graph: {
    summary: 'Draw the compiled graph as Mermaid (default) or Graphviz DOT',
    usage: 'troupe graph <role.yaml> [--format mermaid|dot] [--plugins file]',
    flags: { format: 'string', plugins: 'string' },
    positionals: { min: 1, max: 1 },
    load: from('./graph'),
  },
  help: {
    summary: 'List the commands, or show the usage of one',
    usage: 'troupe help [command]',
    flags: {},
    positionals: { min: 0, max: 1 },
    load: from('./help'),
  },
};
