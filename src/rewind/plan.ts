/**
 * Where a rewind goes back to (docs/cli.md, "troupe rewind"), from what the probe reported of
 * a run (`replay-interceptor.ts`): the boundary after which the steps run again, the workflow task a
 * replay resets to, and the tool calls with side effects among the steps that would run again. Steps
 * are numbered from 1 in the order they were recorded; the steps recorded together are one wave, and
 * a step inside a wave of several stands for its wave: the boundary is the wave's start. Pure.
 */
import { temporal } from '@temporalio/proto';
import type { ProbeReport, ProbeStep } from './replay-interceptor';

/** A worker tool call that ran in a step after the boundary: it would run again, or not be undone. */
export interface SideEffect {
  step: number;
  agent: string;
  tool: string;
}

/** Where a rewind to step N goes back to. */
export interface RewindPoint {
  /** The step asked for. */
  step: number;
  /** The steps kept: every step up to and including this one (the start of N's wave when it has several). */
  boundary: number;
  /** The `WorkflowTaskCompleted` event id of the workflow task that followed the boundary's results: the reset point. */
  resetEventId: number;
  /** The steps that run again, in order. */
  again: ProbeStep[];
}

/**
 * Every user-visible text of rewinds, in one place so tests pin them.
 * @internal exported for tests
 */
export const REWIND_TEXTS = {
  notInteger: (raw: string) => `--to-step: "${raw}" is not a step number (steps are numbered from 1, as \`troupe transcript\` shows them)`,
  noStep: (n: number, last: number) =>
    last === 0 ? `--to-step ${n}: the run has no steps yet` : `--to-step ${n}: no step ${n}; the run's steps are 1 to ${last} (\`troupe transcript\` shows them)`,
  lastStep: (n: number) => `--to-step ${n}: step ${n} is the run's last step: nothing would run again`,
  earlierRun: (n: number, first: number) =>
    `--to-step ${n}: step ${n} was recorded before the run continued as new; a rewind goes back to step ${first} at the earliest`,
  wave: (n: number, from: number, to: number) => `step ${n} is in a wave of steps ${from} to ${to}: the rewind goes back to the start of that wave, and the whole wave runs again`,
  sideEffects: (effects: SideEffect[], fork: boolean) =>
    [
      fork
        ? `tool calls after the rewind point ran and are not undone by a fork (rerun with --yes to fork anyway):`
        : `tool calls after the rewind point would run again (rerun with --yes to rewind anyway):`,
      ...effects.map((e) => `  step ${e.step}: ${e.agent} called ${e.tool}`),
    ].join('\n'),
} as const;

/** The waves the probe reported, in order: the steps each command recorded. */
function wavesOf(reports: ProbeReport[]): Array<{ report: ProbeReport; steps: ProbeStep[] }> {
  return reports.filter((r) => r.recorded.length > 0).map((report) => ({ report, steps: report.recorded }));
}

/**
 * The rewind point of step `n`, or the problem: no such step (0, beyond the last), a step of an
 * earlier run of the chain (continue-as-new), or a boundary after the last step (nothing would run
 * again). `notes` gets what the user should know (a step inside a wave).
 */
export function rewindPoint(reports: ProbeReport[], n: number): { ok: true; point: RewindPoint; notes: string[] } | { ok: false; problem: string } {
  const start = reports[0];
  const waves = wavesOf(reports);
  const last = waves.length > 0 ? waves[waves.length - 1].report.steps : (start?.steps ?? 0);
  if (!Number.isInteger(n) || n < 1 || n > last) return { ok: false, problem: REWIND_TEXTS.noStep(n, last) };
  const wave = waves.find((w) => w.steps.some((s) => s.step === n));
  const first = start.steps;
  if (!wave) return { ok: false, problem: REWIND_TEXTS.earlierRun(n, first + 1) };
  const several = wave.steps.length > 1;
  const boundary = several ? wave.steps[0].step - 1 : n;
  if (boundary < first) return { ok: false, problem: REWIND_TEXTS.earlierRun(n, first + 1) };
  if (boundary >= last) return { ok: false, problem: REWIND_TEXTS.lastStep(n) };
  // the first report that saw `boundary` steps: its workflow task followed the boundary's results
  const at = reports.find((r) => r.steps === boundary)!;
  const again = waves.flatMap((w) => w.steps).filter((s) => s.step > boundary);
  const notes = several ? [REWIND_TEXTS.wave(n, wave.steps[0].step, wave.steps[wave.steps.length - 1].step)] : [];
  return { ok: true, point: { step: n, boundary, resetEventId: at.historyLength + 1, again }, notes };
}

/**
 * The worker tool calls that ran in `steps`: every one counts as a side effect, since nothing troupe
 * records says a tool only reads (docs/cli.md, "troupe rewind"). A call that never ran (a
 * budget refused it, a human rejected it) does not.
 */
export function sideEffects(steps: ProbeStep[]): SideEffect[] {
  return steps.flatMap((s) => s.tools.filter((t) => t.ran).map((t) => ({ step: s.step, agent: s.agent, tool: t.tool })));
}

/** A child run a reset leaves behind: started after the reset point and still running. */
export interface LeftChild {
  workflowId: string;
  runId: string;
}

/**
 * The child runs of `history` started after event `resetEventId` that had not closed when it was
 * fetched: the running child teams a reset of a running run cancels (docs/cli.md, "troupe rewind").
 * Temporal's reset does not: on Server 1.29.1 (checked by a test) a reset applies no parent close policy to the base
 * run's children, which would go on, attached to no run.
 */
export function childrenLeft(history: temporal.api.history.v1.IHistory, resetEventId: number): LeftChild[] {
  const T = temporal.api.enums.v1.EventType;
  const started = new Map<number, LeftChild>();
  for (const e of history.events ?? []) {
    if (e.eventType === T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED) {
      const a = e.childWorkflowExecutionStartedEventAttributes!;
      const initiated = Number(a.initiatedEventId);
      if (initiated > resetEventId) started.set(initiated, { workflowId: a.workflowExecution!.workflowId!, runId: a.workflowExecution!.runId! });
    }
    const closed =
      e.childWorkflowExecutionCompletedEventAttributes ??
      e.childWorkflowExecutionFailedEventAttributes ??
      e.childWorkflowExecutionCanceledEventAttributes ??
      e.childWorkflowExecutionTimedOutEventAttributes ??
      e.childWorkflowExecutionTerminatedEventAttributes;
    if (closed) started.delete(Number(closed.initiatedEventId));
  }
  return [...started.values()];
}
