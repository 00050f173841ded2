/**
 * The rewind probe's workflow interceptor (docs/cli.md, "troupe rewind"). **Runs in the
 * workflow sandbox**: deterministic code only. Bundled only into the replay worker of `troupe rewind`
 * (`src/rewind/probe.ts`), never into a worker's bundle.
 *
 * It installs the loop's step probe (`src/workflows/probe.ts`) and tells the replay, through the
 * `rewindProbe` sink, (1) each time the round machine recorded steps: the steps with their waves and
 * worker tool calls, and the history length of the workflow task in which they were recorded (the
 * task that followed their results, the reset point of a replay); (2) when the start header
 * `troupe-rewind-step` names a boundary K, the team state after step K, taken by the round machine's
 * own `teamStateOf` at the first command after step K's wave was recorded and routed.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { proxySinks, workflowInfo, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { RunInput } from '../contract';
import type { Command } from '../core/run/types';
import type { RunState } from '../core/state/state';
import { teamStateOf, type TeamState } from '../core/state/team-state';
import type { Run } from '../workflows/execution';
import { installStepProbe } from '../workflows/probe';

/** The start header that names the boundary whose team state the probe takes. */
export const PROBE_HEADER = 'troupe-rewind-step';

/** The end a team state taken at a rewind's boundary names in its `source`. */
export const PROBE_END = { status: 'running', reason: 'rewind' } as const;

/** One recorded step, as the probe reports it. */
export interface ProbeStep {
  step: number;
  agent: string;
  round: number;
  wave: number;
  kind: string;
  /** The worker tool calls of the step (`ran: false`: it never ran). */
  tools: Array<{ tool: string; ran: boolean }>;
  /** A team agent's step: its child run. */
  team?: string;
}

/** What the round machine had recorded after one of its commands. */
export interface ProbeReport {
  /** Steps recorded so far (in this run and the runs it continued as new). */
  steps: number;
  /** The workflow task's history length (its `WorkflowTaskStarted` event id). */
  historyLength: number;
  /** The steps recorded by this command. */
  recorded: ProbeStep[];
}

/** The probe's sink. */
export interface RewindSinks extends Sinks {
  rewindProbe: {
    /** The run's start input: its compiled graph and task. */
    started(input: RunInput): void;
    stepped(report: ProbeReport): void;
    captured(steps: number, state: TeamState): void;
  };
}

const { rewindProbe } = proxySinks<RewindSinks>();

/**
 * The run state as it stood before the machine began the wave of `command` (its frontier still the
 * wave, the last wave the one before): what `teamStateOf` reads at a run's end.
 * @internal exported for tests
 */
export function beforeWave(state: RunState, command: Command, lastWave: string[]): RunState {
  if (command.kind !== 'dispatch') return state;
  return { ...state, frontier: command.items, deferred: state.frontier, round: { ...state.round, lastWave } };
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let target: number | undefined;
  let reported: number | undefined;
  let taken = false;
  let lastWave: string[] = [];
  installStepProbe({
    stepped(run: Run, _event, command) {
      const { state } = run;
      // the first command reports where the run starts (steps of the runs it continued as new included)
      if (reported === undefined || state.steps !== reported) {
        const since = reported ?? state.steps;
        const recorded = state.transcript
          .filter((t) => t.kind !== 'decision' && t.step > since)
          .map((t): ProbeStep => ({
            step: t.step,
            agent: t.agent,
            round: t.round,
            wave: t.wave,
            kind: t.kind ?? 'agent',
            tools: (t.tools ?? []).map((c) => ({ tool: c.tool, ran: c.ran !== false })),
            ...(t.team ? { team: t.team } : {}),
          }));
        rewindProbe.stepped({ steps: state.steps, historyLength: workflowInfo().historyLength, recorded });
        reported = state.steps;
      }
      // the wave after step K is routed once the machine asks for anything but the judge
      if (target !== undefined && !taken && state.steps === target && command.kind !== 'judge') {
        taken = true;
        rewindProbe.captured(state.steps, teamStateOf(beforeWave(state, command, lastWave), run.graph, PROBE_END, workflowInfo().workflowId));
      }
      lastWave = [...state.round.lastWave];
    },
  });
  return {
    inbound: [
      {
        async execute(input, next) {
          const header = input.headers[PROBE_HEADER];
          if (header) target = defaultPayloadConverter.fromPayload<number>(header);
          rewindProbe.started(input.args[0] as RunInput);
          return next(input);
        },
      },
    ],
  };
};
