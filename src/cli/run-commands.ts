/**
 * Rows of the command table for the run-time commands (SPEC §9): run, worker, dev, inspection and
 * the signals. Merged into `COMMANDS` in `commands.ts`.
 */
import type { ParsedArgs } from './args';
import type { CommandModule, CommandSpec } from './commands';

type Runner = (args: ParsedArgs) => Promise<number>;

function from(id: string, pick: (m: Record<string, Runner>) => Runner): () => Promise<CommandModule> {
  return () => new Promise((resolve) => resolve({ run: pick(require(id) as Record<string, Runner>) }));
}

const one = { min: 1, max: 1 };

export const RUN_COMMANDS: Readonly<Record<string, CommandSpec>> = {
  run: {
    summary: 'Start a run and follow it to its result (exit 0 completed, 2 other status, 1 errors)',
    usage: 'troupe run <role.yaml> [--task T] [--id ID] [--json] [--detach] [--plugins file]',
    flags: { task: 'string', id: 'string', json: 'boolean', detach: 'boolean', plugins: 'string' },
    positionals: one,
    load: from('./run', (m) => m.run),
  },
  worker: {
    summary: 'Run a worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TROUPE_TASK_QUEUE, OPENAI_*)',
    usage: 'troupe worker [--plugins file]',
    flags: { plugins: 'string' },
    positionals: { min: 0, max: 0 },
    load: from('./worker', (m) => m.run),
  },
  dev: {
    summary: 'Local dev server + Web UI + worker + an example run (offline model without OPENAI_API_KEY)',
    usage: 'troupe dev [role.yaml] [--task T] [--exit]',
    flags: { task: 'string', exit: 'boolean' },
    positionals: { min: 0, max: 1 },
    load: from('./dev', (m) => m.run),
  },
  status: {
    summary: "Show a run's phase, position, usage, goal and pending requests",
    usage: 'troupe status <id> [--json]',
    flags: { json: 'boolean' },
    positionals: one,
    load: from('./inspect', (m) => m.status),
  },
  result: {
    summary: 'Wait for a run and print its result',
    usage: 'troupe result <id> [--json]',
    flags: { json: 'boolean' },
    positionals: one,
    load: from('./inspect', (m) => m.result),
  },
  transcript: {
    summary: "Print a run's steps (last 200)",
    usage: 'troupe transcript <id> [--json]',
    flags: { json: 'boolean' },
    positionals: one,
    load: from('./inspect', (m) => m.transcript),
  },
  pause: {
    summary: 'Pause a run: no new wave starts, clocks stop',
    usage: 'troupe pause <id>',
    flags: {},
    positionals: one,
    load: from('./control', (m) => m.pause),
  },
  resume: {
    summary: 'Resume a paused run',
    usage: 'troupe resume <id>',
    flags: {},
    positionals: one,
    load: from('./control', (m) => m.resume),
  },
  stop: {
    summary: 'Stop a run gracefully after in-flight work (cancelled/user_stop)',
    usage: 'troupe stop <id> [--reason R]',
    flags: { reason: 'string' },
    positionals: one,
    load: from('./control', (m) => m.stop),
  },
  cancel: {
    summary: 'Cancel a run now, aborting in-flight calls (cancelled/user_abort)',
    usage: 'troupe cancel <id>',
    flags: {},
    positionals: one,
    load: from('./control', (m) => m.cancel),
  },
  approve: {
    summary: 'Approve a pending request',
    usage: 'troupe approve <id> [--request R] [--note N]',
    flags: { request: 'string', note: 'string' },
    positionals: one,
    load: from('./control', (m) => m.approve),
  },
  reject: {
    summary: 'Reject a pending request with a reason fed back to the agent',
    usage: 'troupe reject <id> [--request R] --reason R',
    flags: { request: 'string', reason: 'string' },
    positionals: one,
    load: from('./control', (m) => m.reject),
  },
  answer: {
    summary: "Answer an agent's clarification request",
    usage: 'troupe answer <id> TEXT [--request R]',
    flags: { request: 'string' },
    positionals: { min: 2, max: 2 },
    load: from('./control', (m) => m.answer),
  },
  message: {
    summary: "Add a user message to the next dispatch (of one agent with --to)",
    usage: 'troupe message <id> TEXT [--to AGENT]',
    flags: { to: 'string' },
    positionals: { min: 2, max: 2 },
    load: from('./control', (m) => m.message),
  },
  signal: {
    summary: "Record a signal in the run's ledger (for signal_observed)",
    usage: 'troupe signal <id> TYPE [--payload JSON]',
    flags: { payload: 'string' },
    positionals: { min: 2, max: 2 },
    load: from('./control', (m) => m.signal),
  },
};
