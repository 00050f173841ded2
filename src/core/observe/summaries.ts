/**
 * The one-line labels troupe gives its activities and timers, which the Temporal Web UI shows on the
 * timeline bars and event rows (docs/operating.md, "The Temporal UI"). Without them a wave of agents
 * is a row of identical `callAgent` bars. Pure; each label is cut to the 200 bytes Temporal allows.
 */
import { shortenUtf8 } from '../text/utf8';
import type { HumanRequest } from '../humans/requests';
import type { TeamChoice } from '../waves/types';

/** Temporal's limit on a summary (single-line markdown). */
export const SUMMARY_MAX_BYTES = 200;

/** Where an agent call sits in the run. */
export interface CallPosition {
  agent: string;
  round: number;
  wave: number;
  /** The agent's loop iteration; absent when the agent is in no loop. */
  iteration?: number;
  /** How a team chose it: a transfer, or the selector. */
  via?: TeamChoice;
}

const position = (p: CallPosition) =>
  `${p.agent} · round ${p.round} · wave ${p.wave}${p.iteration !== undefined ? ` · iteration ${p.iteration}` : ''}${p.via ? ` · ${via(p.via)}` : ''}`;

/** How a team's agent came to its turn, in its label. */
function via(choice: TeamChoice): string {
  if (choice.kind === 'handoff') return `via handoff from ${choice.from}`;
  return choice.fallback ? 'selected (fallback)' : 'selected';
}

/** Every label, so tests pin them. */
export const SUMMARY_TEXTS = {
  /** An agent's model call: `writer · round 1 · wave 3 · iteration 2`. */
  agentCall: (p: CallPosition) => position(p),
  /** A team agent's child run: `research · round 1 · wave 1 · team ./research-team.yaml`. */
  team: (p: CallPosition, file: string) => `${position(p)} · team ${file}`,
  /** A re-dispatch of a final agent: its output did not match `output.schema`, or a check sent it back. */
  retry: (p: CallPosition, by: string) => `${position(p)} · retry for ${by}`,
  /** One model call of an agent's tool loop, under the dispatch's label (the first is step 1). */
  toolLoopStep: (dispatch: string, step: number) => `${dispatch} · step ${step}`,
  /** A worker tool call: `files.write_file · writer`. */
  toolCall: (tool: string, agent: string) => `${tool} · ${agent}`,
  /** A selector team's choice of its next speaker. */
  select: (turn: number, round: number) => `select speaker · round ${round} · turn ${turn}`,
  /** The convergence judge reading an agent's result. */
  judge: (agent: string) => `judge · ${agent}`,
  /** Compaction of an agent's older context. */
  compaction: (agent: string) => `compaction · ${agent}`,
  /** The worker's check of endpoints and tools before the first call. */
  prepare: 'run start: endpoints and tools',
  /** A `timeout_ms` condition's timer. */
  timeout: (ms: number, round: number) => `timeout_ms ${ms} · round ${round}`,
  /** A wait for a human: the requests it waits on. */
  humanWait: (requests: readonly Pick<HumanRequest, 'id' | 'kind' | 'agent'>[]) =>
    `waiting for a human: ${requests.map((r) => `${r.id} ${r.kind}${r.agent ? ` (${r.agent})` : ''}`).join(', ')}`,
  /** A wait on `troupe pause` or the goal tool's pause. */
  pausedWait: (by: 'user' | 'goal') => (by === 'user' ? 'paused: waiting for troupe resume' : 'paused by the goal tool: waiting for troupe resume'),
} as const;

/** A label bounded to Temporal's 200 bytes, on one line. */
export function summary(text: string): string {
  return shortenUtf8(text.replace(/\s*\n\s*/g, ' '), SUMMARY_MAX_BYTES);
}
