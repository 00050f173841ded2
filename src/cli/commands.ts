/**
 * The CLI's command table. Each command lives in `src/cli/<file>.ts` and exports its runner; it is
 * loaded only when used, so `troupe validate` does not load Temporal. To add a command, add a row here.
 */
import type { FlagSpec, ParsedArgs } from './args';

/** A command module: runs with parsed args, resolves to the exit code. */
interface CommandModule {
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

/** One row: usage line, one-line summary, flags, the runner, and how many positionals it takes. */
function command(
  usage: string,
  summary: string,
  flags: FlagSpec,
  load: () => Promise<CommandModule>,
  positionals: CommandSpec['positionals'] = one,
): CommandSpec {
  return { usage, summary, flags, positionals, load };
}

/** The commands, in help order. */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  run: command('troupe run <role.yaml> [--task T] [--continue ID | --state FILE] [--id ID] [--json] [--detach] [--plugins file]', 'Start a run, or one that continues a closed run (--continue) or a saved team state (--state), and follow it to its result (exit 0 completed, 2 other status, 1 errors)', { task: 'string', continue: 'string', state: 'string', id: 'string', json: 'boolean', detach: 'boolean', plugins: 'string' }, from('./run')),
  chat: command('troupe chat <role.yaml> [--continue ID] [--plugins file]', 'Talk with a team: each line typed is a task that continues the run before it (one thread), shown live; its requests are asked at the prompt; Ctrl+C stops a run; /exit or Ctrl+D ends', { continue: 'string', plugins: 'string' }, from('./chat')),
  state: command('troupe state <id> [--out FILE]', "Write a closed run's team state (JSON) to stdout or FILE, for `troupe run --state`", { out: 'string' }, from('./team', 'state')),
  rewind: command('troupe rewind <id> --to-step N [--message TEXT [--to AGENT]] [--yes]', "Run a run again from after step N (Temporal's reset: the original kept), or with --message fork it into a new run of its thread from the state after step N; --yes over tool calls with side effects and a running run", { 'to-step': 'string', message: 'string', to: 'string', yes: 'boolean' }, from('./rewind')),
  worker: command('troupe worker [--plugins file] [--tools tools.yaml] [--deployment-name D --build-id B] [--metrics 127.0.0.1:9464]', 'Run a worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TROUPE_TASK_QUEUE, OPENAI_*; TROUPE_LOG_LEVEL); with a build, runs it starts are pinned to it (Worker Versioning); with --metrics (TROUPE_METRICS_ADDRESS), Prometheus metrics on that address', { plugins: 'string', tools: 'string', 'deployment-name': 'string', 'build-id': 'string', metrics: 'string' }, from('./worker'), { min: 0, max: 0 }),
  dev: command('troupe dev [role.yaml] [--task T] [--tools tools.yaml] [--port 7233] [--ui-port 8233] [--metrics 127.0.0.1:9464] [--exit]', 'Local dev server + Web UI + worker + an example run (offline model without OPENAI_API_KEY); --metrics serves its worker\'s Prometheus metrics', { task: 'string', tools: 'string', port: 'string', 'ui-port': 'string', metrics: 'string', exit: 'boolean' }, from('./dev'), { min: 0, max: 1 }),
  'codec-server': command('troupe codec-server [--port 8888] [--host 127.0.0.1] [--origin URL,…] [--token T]', "Serve the Web UI's remote codec endpoint (/encode, /decode) with TROUPE_PAYLOAD_KEY, so the UI shows encrypted payloads decrypted", { port: 'string', host: 'string', origin: 'string', token: 'string' }, from('./codec-server'), { min: 0, max: 0 }),
  tools: command('troupe tools [role.yaml] --tools <tools.yaml> [--json]', 'List the tools a tools file offers (starts its MCP servers; needs no Temporal server); with a role, mark those its approval.tools gate', { tools: 'string', json: 'boolean' }, from('./tools'), { min: 0, max: 1 }),
  status: command('troupe status <id> [--watch] [--json]', "Show a run's phase, position, usage, goal, pending requests and decisions (--watch: follow it to its end)", { json: 'boolean', watch: 'boolean' }, from('./inspect', 'status')),
  list: command('troupe list [--graph G] [--status S] [--waiting] [--thread T] [--limit N] [--json]', "List runs, newest first: of one graph, with one status, or waiting for a human; a thread's runs, oldest first", { graph: 'string', status: 'string', waiting: 'boolean', thread: 'string', limit: 'string', json: 'boolean' }, from('./list'), { min: 0, max: 0 }),
  result: command('troupe result <id> [--json]', 'Wait for a run and print its result', { json: 'boolean' }, from('./inspect', 'result')),
  transcript: command('troupe transcript <id> [--json] | --thread T', "Print a run's steps (last 200); with --thread, each run of a thread in order", { json: 'boolean', thread: 'string' }, from('./inspect', 'transcript'), { min: 0, max: 1 }),
  pause: command('troupe pause <id>', 'Pause a run: no new wave starts, clocks stop', {}, from('./control', 'pause')),
  resume: command('troupe resume <id>', 'Resume a paused run', {}, from('./control', 'resume')),
  stop: command('troupe stop <id> [--reason R]', 'Stop a run gracefully after in-flight work (cancelled/user_stop)', { reason: 'string' }, from('./control', 'stop')),
  cancel: command('troupe cancel <id>', 'Cancel a run now, aborting in-flight calls (cancelled/user_abort)', {}, from('./control', 'cancel')),
  approve: command('troupe approve <id> [--request R] [--note N] [--by NAME]', 'Approve a pending request, naming the digest a gate shows (recorded as decided by NAME, default your OS user)', { request: 'string', note: 'string', by: 'string' }, from('./control', 'approve')),
  reject: command('troupe reject <id> [--request R] --reason R [--by NAME]', 'Reject a pending request with a reason fed back to the agent (a gate: naming the digest it shows)', { request: 'string', reason: 'string', by: 'string' }, from('./control', 'reject')),
  answer: command('troupe answer <id> TEXT [--request R] [--by NAME]', "Answer an agent's clarification request", { request: 'string', by: 'string' }, from('./control', 'answer'), { min: 2, max: 2 }),
  message: command('troupe message <id> TEXT [--to AGENT]', "Add a user message to the next dispatch (of one agent with --to)", { to: 'string' }, from('./control', 'message'), { min: 2, max: 2 }),
  signal: command('troupe signal <id> TYPE [--payload JSON]', "Record a signal in the run's ledger (for signal_observed)", { payload: 'string' }, from('./control', 'signal'), { min: 2, max: 2 }),
  validate: command('troupe validate <role.yaml> [--plugins file] [--tools tools.yaml] [--json]', 'Check a role.yaml: located errors and warnings, exit 1 on errors', { plugins: 'string', tools: 'string', json: 'boolean' }, from('./validate'), { min: 1, max: 1 }),
  graph: command('troupe graph <role.yaml> [--format mermaid|dot] [--plugins file]', 'Draw the compiled graph as Mermaid (default) or Graphviz DOT', { format: 'string', plugins: 'string' }, from('./graph'), { min: 1, max: 1 }),
  help: command('troupe help [command]', 'List the commands, or show the usage of one', {}, from('./help'), { min: 0, max: 1 }),
};
