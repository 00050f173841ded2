/**
 * `troupe rewind <id> --to-step N [--message TEXT [--to AGENT]] [--yes]` (docs/cli.md, "troupe
 * rewind"): a replay of the run from after step N (Temporal's
 * workflow reset), or with `--message` a fork of it into a new run of its thread. Refusals, exit 1,
 * nothing reset or started: a bad step, a workflow that is not a troupe run, tool calls with side
 * effects after step N without `--yes`, a running run not confirmed (no terminal and no `--yes`).
 */
import { createInterface } from 'node:readline/promises';
import { RewindRefusedError, rewindRun } from '../rewind/rewind';
import { ContinueRefusedError } from '../client/team-state';
import { REWIND_TEXTS } from '../rewind/plan';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { connectOrExplain } from './connect';
import { err, out } from './io';

/**
 * Every user-visible text of `troupe rewind`, in one place so tests pin them.
 * @internal exported for tests
 */
export const REWIND_CLI_TEXTS = {
  needStep: () => 'troupe rewind: --to-step N is required (the step to go back to, as `troupe transcript` numbers it)',
  toWithoutMessage: () => 'troupe rewind: --to names the agent of --message; pass --message too',
  refused: (problem: string) => `cannot rewind: ${problem}`,
  note: (text: string) => `note: ${text}`,
  confirm: (id: string) => `${id} is still running: reset it to this step now (its running child teams are cancelled)? [y/N] `,
  replayed: (id: string, runId: string, boundary: number, again: number, original: string) =>
    `rewound ${id} to after step ${boundary}: a new run ${runId} runs the ${again} step${again === 1 ? '' : 's'} after it again (the original run ${original} stays in its history); follow it with: troupe status ${id} --watch`,
  forked: (id: string, workflowId: string, boundary: number) =>
    `forked ${id} after step ${boundary} into a new run of its thread: ${workflowId} (the original is left as it is); follow it with: troupe status ${workflowId} --watch`,
} as const;

/** Run `troupe rewind`. */
export async function run(args: ParsedArgs): Promise<number> {
  const id = args.positionals[0];
  const raw = stringFlag(args, 'to-step');
  const message = stringFlag(args, 'message');
  const to = stringFlag(args, 'to');
  const yes = booleanFlag(args, 'yes');
  if (raw === undefined) {
    err(REWIND_CLI_TEXTS.needStep());
    return 1;
  }
  if (!/^-?\d+$/.test(raw.trim())) {
    err(REWIND_CLI_TEXTS.refused(REWIND_TEXTS.notInteger(raw)));
    return 1;
  }
  if (to !== undefined && message === undefined) {
    err(REWIND_CLI_TEXTS.toWithoutMessage());
    return 1;
  }
  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    const outcome = await rewindRun(conn.client, id, {
      toStep: Number(raw),
      ...(message !== undefined ? { message } : {}),
      ...(to !== undefined ? { to } : {}),
      yes,
      confirmRunning: confirmOnTerminal,
      onNote: (n) => err(REWIND_CLI_TEXTS.note(n)),
    });
    if (outcome.kind === 'replay') out(REWIND_CLI_TEXTS.replayed(id, outcome.runId, outcome.point.boundary, outcome.point.again.length, outcome.original));
    else out(REWIND_CLI_TEXTS.forked(id, outcome.workflowId, outcome.point.boundary));
    return 0;
  } catch (e) {
    // a fork starts a run of the thread: a team state it cannot start from is refused as a continue is
    if (!(e instanceof RewindRefusedError) && !(e instanceof ContinueRefusedError)) throw e;
    for (const p of e.problems) err(REWIND_CLI_TEXTS.refused(p));
    return 1;
  } finally {
    await conn.close();
  }
}

/** Ask on the terminal; without one (a script, a pipe) the answer is no. */
async function confirmOnTerminal(id: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(REWIND_CLI_TEXTS.confirm(id))).trim());
  } finally {
    rl.close();
  }
}
