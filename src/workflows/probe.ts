/**
 * The seam `troupe rewind` reads a run through (docs/cli.md, "troupe rewind"): a hook the
 * loop calls after each command the round machine gives, with what happened and what comes next.
 *
 * Workflow code names only this seam. The hook is installed by the rewind probe's workflow
 * interceptor (`src/rewind/replay-interceptor.ts`), which is bundled only into the replay worker that
 * `troupe rewind` runs over a recorded history; a worker's own bundle has none, so a run pays one
 * `undefined` check per command. The hook may read the run; it changes nothing, schedules nothing and
 * awaits nothing, so the commands of a replay are those of the run.
 */
import type { Command, RunEvent } from '../core/run/types';
import type { Run } from './execution';

/** What the rewind probe is told after each command of the round machine. */
export interface StepProbe {
  stepped(run: Run, event: RunEvent, command: Command): void;
}

/** Where the hook lives: a global of the workflow's own sandbox (each run has its own globals). */
const PROBE = Symbol.for('troupe.stepProbe');

/** Installs the hook for the current run (the rewind probe's interceptor calls it). */
export function installStepProbe(probe: StepProbe): void {
  (globalThis as Record<symbol, unknown>)[PROBE] = probe;
}

/** The hook, in a rewind probe's replay; undefined in every worker. */
export function stepProbe(): StepProbe | undefined {
  return (globalThis as Record<symbol, unknown>)[PROBE] as StepProbe | undefined;
}
