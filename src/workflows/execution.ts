/**
 * One execution of the run workflow: the compiled graph, the plain-JSON run state, and what lives
 * only in this execution's memory (in-flight agents, the last wave's effects, how the run ends).
 * Every phase of the workflow receives it.
 */
import type { CancellationScope } from '@temporalio/workflow';
import type { CompiledGraph } from '../core/graph/types';
import type { RunEnd } from '../core/ending/result';
import type { OutputVerdict } from '../core/output/check';
import type { RunState } from '../core/state/state';
import type { WaveEffects } from '../core/ending/situation';
import type { RunningCall } from '../core/observe/details';
import type { RunVersion } from './versions';

export interface Run {
  graph: CompiledGraph;
  state: RunState;
  version: RunVersion;
  /** Results keep their line structure for `regex` matchers (fixed at the run's start). */
  keepLines: boolean;
  /** Agents whose activities are in flight (for `status` and `stop`). */
  inFlight: string[];
  wave: WaveEffects;
  /** Counts signals received, so waits wake up when something may have changed. */
  signalsSeen: number;
  /** Set once the run has decided how it ends. */
  end?: RunEnd;
  output?: OutputVerdict;
  /** The workflow's root scope: cancelled when the user cancels the workflow. */
  root: CancellationScope;
  /** Model and tool calls in flight, with their labels (for the current details). */
  running: RunningCall[];
  /** Tool activities scheduled and not yet settled (bounded since troupe 0.3, `tool-loop.ts`). */
  pendingToolCalls: number;
  /** troupe's search attributes were set at start, so the run keeps them up to date. */
  indexed: boolean;
  /** The waiting flag last written to the attributes (or memo). */
  waitingPublished?: boolean;
  /** The labelled timer that runs while a human is needed (`observe.ts`). */
  waitTimer?: { label: string; scope: CancellationScope };
}
