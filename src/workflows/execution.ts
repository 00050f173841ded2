/**
 * One execution of the run workflow: the round machine (the compiled graph, the plain-JSON run state,
 * where the run is) and what lives only in this execution's memory (calls in flight, the wait for a
 * human's timer, how the run ends). Every part of the workflow receives it.
 */
import type { CancellationScope, ChildWorkflowHandle, Workflow } from '@temporalio/workflow';
import type { CompiledGraph } from '../core/graph/types';
import type { RunEnd } from '../core/ending/result';
import type { OutputVerdict } from '../core/output/check';
import type { WaveItem } from '../core/waves/types';
import type { RunState } from '../core/state/state';
import type { RunningCall } from '../core/observe/progress';
import type { Machine } from '../core/run/step';

export interface Run {
  graph: CompiledGraph;
  state: RunState;
  /** The round machine: decides what the loop does next (`core/run/step.ts`). */
  machine: Machine;
  /** Agents whose activities are in flight (for `status` and `pause`). */
  inFlight: string[];
  /** Counts signals received, so waits wake up when something may have changed. */
  signalsSeen: number;
  /** Set once the run has decided how it ends. */
  end?: RunEnd;
  output?: OutputVerdict;
  /** The workflow's root scope: cancelled when the user cancels the workflow. */
  root: CancellationScope;
  /** Model and tool calls in flight, with their labels (for the current details). */
  running: RunningCall[];
  /** Tool activities scheduled and not yet settled (bounded, `tool-dispatch.ts`). */
  pendingToolCalls: number;
  /** troupe's search attributes were set at start, so the run keeps them up to date. */
  indexed: boolean;
  /** A refresh of the current details is queued for the end of this turn of the activation (`observe.ts`). */
  detailsQueued?: boolean;
  /** The waiting flag last written to the attributes (or memo). */
  waitingPublished?: boolean;
  /**
   * Tool calls the wave's team agents hold as their shares (`core/budgets/shares.ts`): the wave's
   * other agents may not take them. 0 outside a wave with teams.
   */
  reservedToolCalls?: number;
  /** The wave dispatched last: where a run that failed or was cancelled in it goes on (docs/semantics.md, "Teams that go on"). */
  lastDispatched?: WaveItem[];
  /** Team agents' child runs in flight (docs/teams.md, "Nested teams"): `stop`, `pause` and `resume` reach them. */
  children: Array<{ agent: string; workflowId: string; handle?: ChildWorkflowHandle<Workflow> }>;
  /** The labelled timer that runs while a human is needed (`observe.ts`). */
  waitTimer?: { label: string; scope: CancellationScope };
}
