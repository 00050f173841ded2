/**
 * Teams that go on, the client's side (docs/semantics.md, "Teams that go on"): a closed run's team
 * state, read from its RunResult (`troupe state`), or from a state file (`troupe run --state`); every
 * check a continuation needs, all made before anything starts and reported together; and the id of a
 * thread's next run. The workflow checks the team state again when it starts (it is untrusted input).
 */
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { WORKFLOW_TYPE, type TroupeRun } from '../contract';
import type { RunResult } from '../core/ending/result';
import type { CompiledGraph } from '../core/graph/types';
import { continuationIssues, readTeamState, sizeProblem, TEAM_STATE_MAX_BYTES, type TeamState } from '../core/state/team-state';
import { utf8ByteLength } from '../core/text/utf8';

/** A continuation troupe will not start: every reason, together. Nothing was started. */
export class ContinueRefusedError extends Error {
  constructor(readonly problems: string[]) {
    super(`cannot continue: ${problems.join('; ')}`);
    this.name = 'ContinueRefusedError';
  }
}

/**
 * Every user-visible text of this module, in one place so tests pin them.
 * @internal exported for tests
 */
export const CONTINUE_TEXTS = {
  notFound: (id: string) => `no run ${id}`,
  notTroupe: (id: string, type: string) => `${id} is a ${type} workflow, not a troupe run`,
  running: (id: string) => `${id} is still running: wait with \`troupe result ${id}\`, or stop it`,
  noResult: (id: string, status: string) => `${id} ended ${status} without a RunResult, so it has no team state (a terminated or timed-out workflow has none)`,
  noTeamState: (id: string, why: string | undefined) => `${id}'s RunResult has no team state${why ? `: ${why}` : ' (it ended before troupe kept one)'}`,
  dropped: (ids: string[]) => `requests ${ids.join(', ')} of the run continued were still open when it ended: they are dropped`,
  notJson: (file: string, message: string) => `${file}: not JSON: ${message}`,
  fileTooLarge: (file: string, bytes: number) =>
    `${file}: ${Math.round(bytes / 1024)} KiB, more than a state file within the team state's ${TEAM_STATE_MAX_BYTES / 1024} KiB bound can take (${STATE_FILE_MAX_BYTES / 1024} KiB)`,
} as const;

/**
 * The largest state file read at all. The bound itself is on the encoded state and is checked on the
 * parsed document, naming its largest part: `troupe state --out` writes it indented, so a file of a
 * state within the bound may be larger than the bound.
 */
const STATE_FILE_MAX_BYTES = 8 * TEAM_STATE_MAX_BYTES;

/** A closed run's team state, and the warnings a continuation of it gives (its dropped requests). */
export interface SourceState {
  state: TeamState;
  warnings: string[];
}

/**
 * The team state of closed run `id`, from its RunResult. Refused (every reason): no such run, not a
 * troupe run, still running, no RunResult (terminated, timed out), no team state.
 */
export async function exportTeamState(client: Client, id: string): Promise<SourceState> {
  const handle = client.workflow.getHandle<TroupeRun>(id);
  const described = await describeTroupeRun(client, id);
  if (!described.ok) throw new ContinueRefusedError([described.problem]);
  const { description } = described;
  const status = description.status.name;
  if (status === 'RUNNING') throw new ContinueRefusedError([CONTINUE_TEXTS.running(id)]);
  if (status !== 'COMPLETED') throw new ContinueRefusedError([CONTINUE_TEXTS.noResult(id, status.toLowerCase())]);
  const result = (await handle.result()) as RunResult;
  if (!result.teamState) {
    const why = result.warnings.find((w) => w.startsWith('the team state takes'));
    throw new ContinueRefusedError([CONTINUE_TEXTS.noTeamState(id, why)]);
  }
  const unanswered = (result.unanswered ?? []).map((r) => r.id);
  return { state: result.teamState, warnings: unanswered.length > 0 ? [CONTINUE_TEXTS.dropped(unanswered)] : [] };
}

/** The description of troupe run `id`; or why there is none: no such run, or a workflow that is not a troupe run. */
export async function describeTroupeRun(client: Client, id: string): Promise<{ ok: true; description: WorkflowExecutionDescription } | { ok: false; problem: string }> {
  try {
    const description = await client.workflow.getHandle(id).describe();
    return description.type === WORKFLOW_TYPE ? { ok: true, description } : { ok: false, problem: CONTINUE_TEXTS.notTroupe(id, description.type) };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { ok: false, problem: CONTINUE_TEXTS.notFound(id) };
    throw err;
  }
}

/**
 * Parse a state file's text (`troupe run --state`): a bound on the file first, then JSON; the schema
 * and the size bound of the encoded state are checked by {@link checkContinuation}.
 */
export function parseStateFile(file: string, text: string): unknown {
  const bytes = utf8ByteLength(text);
  if (bytes > STATE_FILE_MAX_BYTES) throw new ContinueRefusedError([CONTINUE_TEXTS.fileTooLarge(file, bytes)]);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ContinueRefusedError([CONTINUE_TEXTS.notJson(file, (err as Error).message)]);
  }
}

/**
 * Every check of continuing `doc` with `graph`, together: the schema and version (naming the field),
 * the size bound (naming the largest part), the agents and topology (the missing and extra agents,
 * with did-you-mean). Returns the checked state and its warnings (agents that changed, a failed or
 * cancelled source).
 */
export function checkContinuation(graph: CompiledGraph, doc: unknown): { state: TeamState; warnings: string[] } {
  const read = readTeamState(doc);
  if (!read.ok) throw new ContinueRefusedError(read.problems);
  const tooLarge = sizeProblem(read.state);
  const { errors, warnings } = continuationIssues(graph, read.state);
  const problems = [...(tooLarge ? [tooLarge] : []), ...errors];
  if (problems.length > 0) throw new ContinueRefusedError(problems);
  return { state: read.state, warnings };
}

/** The id of a thread's `n`th run (`<thread>/<n>`, n from 2). */
export function threadRunId(thread: string, n: number): string {
  return `${thread}/${n}`;
}
