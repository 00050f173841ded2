/**
 * What the chaos run (RELIABILITY.md §1) found, and the report as the rows of RELIABILITY.md's
 * chaos table.
 */
import type { Deadlines } from './deadline';
import type { ScenarioKind } from './scenarios';
import { stuckMarkdown, type StuckRun } from './stuck';
import { FAULT_KINDS, type FaultKind } from './target';

/** One fault as it happened. */
export interface FaultRecord {
  kind: FaultKind;
  /** What it was on the target, as the report's fault table names it. */
  label: string;
  /** ms after the chaos phase started. */
  atMs: number;
  /** Model requests the fault cut off (the killed worker's open calls; 0 for the other kinds). */
  requestsCut: number;
  /** ms until the worker (or server, or database) was back, or the added worker polled. */
  downMs: number;
}

/** The parts of a RunResult that must not change under faults. */
export interface Outcome {
  status: string;
  reason: string;
  finalText: string;
  steps: number;
  agentCalls: number;
  toolCalls: number;
}

/** One run's outcome in both phases (absent from a phase in which it did not end by its deadline). */
export interface RunComparison {
  index: number;
  kind: ScenarioKind;
  baseline?: Outcome;
  chaos?: Outcome;
  same: boolean;
}

/** The plan as it ran: its runs, its fault counts, its workers and where it ran. */
export interface PlanSummary {
  runs: ScenarioKind[];
  faults: Record<FaultKind, number>;
  /** Workers at the start of the chaos phase. */
  workers: number;
  latencyMs: [number, number];
  seed: number;
  deadlineMs: Deadlines;
  /** What each fault is on the target the plan ran on. */
  labels: Record<FaultKind, string>;
  /** The Temporal frontend the runs ran on. */
  address: string;
}

/** What the chaos run found. */
export interface ChaosReport {
  plan: PlanSummary;
  faults: FaultRecord[];
  runs: RunComparison[];
  /** Runs whose outcome differed from the undisturbed run, or that did not end in a phase. */
  different: number;
  /** Runs that did not end by their deadline, in either phase, with what they were waiting for. */
  didNotEnd: StuckRun[];
  /** Agent results recorded fewer times than undisturbed (steps lost). */
  stepsLost: number;
  /** Agent results recorded more times than undisturbed (steps repeated). */
  stepsRepeated: number;
  /** Model requests for a call whose activity had already completed: must be 0. */
  requestsAfterCompletion: number;
  /** Model calls interrupted by a fault and sent again (a new attempt of an activity that had not completed). */
  callsRetried: number;
  /** Model calls lost with their worker on every attempt and dispatched again as a new activity. */
  callsRedispatched: number;
  /** Tool side effects that happened twice: must be 0. */
  duplicateEffects: number;
  /** Tool attempts beyond the first (interrupted calls tried again with the same idempotency key). */
  toolAttemptsRetried: number;
  /** Tool side effects in each phase (equal when none was lost or repeated). */
  effects: { baseline: number; chaos: number };
  baselineMs: number;
  chaosMs: number;
}

/** The report as the rows of RELIABILITY.md's chaos table: a fault row per kind the plan asked for or that happened. */
export function reportMarkdown(r: ChaosReport): string {
  const kinds = [...new Set(r.plan.runs)].map((k) => `${r.plan.runs.filter((x) => x === k).length} ${k}`).join(', ');
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rows = FAULT_KINDS.flatMap((kind) => {
    const happened = r.faults.filter((f) => f.kind === kind);
    if (happened.length === 0 && r.plan.faults[kind] === 0) return [];
    const label = r.plan.labels[kind];
    const at = `${happened.length} × at ${happened.map((f) => seconds(f.atMs)).join(', ')}`;
    switch (kind) {
      case 'worker_kill':
        return [[label, `${at} (${happened.reduce((n, f) => n + f.requestsCut, 0)} model requests cut)`]];
      case 'server_restart':
      case 'database_restart':
        return [[label, `${at} (down ${happened.map((f) => seconds(f.downMs)).join(', ')})`]];
      case 'worker_added':
        return [[label, `${at} (polling after ${happened.map((f) => seconds(f.downMs)).join(', ')})`]];
    }
  });
  return [
    `runs: ${r.plan.runs.length} (${kinds}); model latency ${r.plan.latencyMs[0]}–${r.plan.latencyMs[1]} ms; seed ${r.plan.seed}; ` +
      `${r.plan.workers} worker${r.plan.workers === 1 ? '' : 's'} at the start of the chaos phase; ` +
      `each run given ${r.plan.deadlineMs.baseline / 1000} s undisturbed, ${r.plan.deadlineMs.chaos / 1000} s under chaos`,
    '',
    '| fault | injected |',
    '|---|---|',
    ...rows.map(([a, b]) => `| ${a} | ${b} |`),
    '',
    '| measure | result |',
    '|---|---|',
    `| runs ending as the undisturbed run (status, reason, final text, steps, calls) | ${r.runs.length - r.different} of ${r.runs.length} |`,
    `| steps lost | ${r.stepsLost} |`,
    `| steps repeated | ${r.stepsRepeated} |`,
    `| model requests for a call whose activity had completed | ${r.requestsAfterCompletion} |`,
    `| model calls cut by a fault and sent again (same call, next attempt) | ${r.callsRetried} |`,
    `| model calls lost with their worker on all 3 attempts, dispatched again | ${r.callsRedispatched} |`,
    `| tool side effects (undisturbed / chaos) | ${r.effects.baseline} / ${r.effects.chaos} |`,
    `| tool side effects that happened twice | ${r.duplicateEffects} |`,
    `| tool attempts retried with the same idempotency key | ${r.toolAttemptsRetried} |`,
    `| wall time (undisturbed / chaos) | ${seconds(r.baselineMs)} / ${seconds(r.chaosMs)} |`,
    ...(r.didNotEnd.length > 0 ? ['', stuckMarkdown(r.didNotEnd)] : []),
  ].join('\n');
}
