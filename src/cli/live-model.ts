/**
 * What the live view of a followed run knows, folded from follow events: the latest `status`
 * snapshot moved on by the steps since, when each running agent and tool call was first seen (so
 * elapsed times tick locally between snapshots), the text each running agent's model call has
 * written so far, the loop cap from the run's graph, and the last steps, decisions and warnings.
 * Pure: the time of each event is passed in.
 */
import type { FollowEvent } from '../client/follow';
import { callsByAgent, type InFlightCall } from '../core/observe/live';
import type { RunStatusView } from '../core/ending/result';
import type { DecisionRecord } from '../core/humans/requests';
import type { TranscriptStep } from '../core/state/state';

/** How many recent warnings, decisions and steps the view keeps. */
const RECENT = 3;

/** The live view's state. */
export interface LiveModel {
  id: string;
  graphName?: string;
  /** The loop cap of the graph (0: acyclic or unknown). */
  cap: number;
  /** Runs of the chain seen so far (more than one after continue-as-new). */
  runs: number;
  status?: RunStatusView;
  /** When the latest snapshot was taken (local ms). */
  statusAt: number;
  /** Running agents, by name: first seen in flight (local ms). */
  agents: Record<string, number>;
  /** Running tool calls, by id: label and start. */
  tools: Record<string, { label: string; since: number }>;
  /** What running agents' model calls have written so far, by agent (from the run's pending activities). */
  writing: Record<string, InFlightCall>;
  steps: TranscriptStep[];
  decisions: DecisionRecord[];
  warnings: string[];
}

/** An empty model for run `id`. */
export function newLiveModel(id: string): LiveModel {
  return { id, cap: 0, runs: 0, statusAt: 0, agents: {}, tools: {}, writing: {}, steps: [], decisions: [], warnings: [] };
}

function keepRecent<T>(list: T[], item: T): T[] {
  return [...list, item].slice(-RECENT);
}

/**
 * The snapshot moved on by a step read from the history (snapshots are taken only when the history
 * cannot tell what changed): the position, the step count and the tokens. The cost waits for the
 * next snapshot or the end.
 */
function movedOn(status: RunStatusView, step: TranscriptStep): RunStatusView {
  if (step.step <= status.steps) return status;
  return {
    ...status,
    round: step.round,
    wave: step.wave,
    steps: step.step,
    usage: {
      ...status.usage,
      promptTokens: status.usage.promptTokens + step.promptTokens,
      completionTokens: status.usage.completionTokens + step.completionTokens,
      totalTokens: status.usage.totalTokens + step.promptTokens + step.completionTokens,
      agentCalls: status.usage.agentCalls + 1,
    },
  };
}

/** Only the texts of agents still running. */
function stillWriting(writing: LiveModel['writing'], agents: LiveModel['agents']): LiveModel['writing'] {
  return Object.fromEntries(Object.entries(writing).filter(([agent]) => agent in agents));
}

/** Fold one follow event, received at local time `now`, into the model (returns a new model). */
export function applyFollowEvent(model: LiveModel, e: FollowEvent, now: number): LiveModel {
  switch (e.kind) {
    case 'started':
      return { ...model, runs: model.runs + 1, graphName: e.graph?.name ?? model.graphName, cap: e.graph?.maxIterations ?? model.cap };
    case 'status': {
      const agents: LiveModel['agents'] = {};
      for (const name of e.status.inFlight) agents[name] = model.agents[name] ?? e.at;
      return { ...model, status: e.status, statusAt: e.at, agents, writing: stillWriting(model.writing, agents) };
    }
    case 'tool': {
      const tools = { ...model.tools };
      if (e.state === 'started') tools[e.id] = { label: e.label, since: Math.min(e.at, now) };
      else delete tools[e.id];
      return { ...model, tools };
    }
    case 'call': {
      const agents = { ...model.agents };
      if (e.state === 'started') agents[e.agent] = agents[e.agent] ?? Math.min(e.at, now);
      else delete agents[e.agent];
      return { ...model, agents, writing: stillWriting(model.writing, agents) };
    }
    case 'live':
      return { ...model, writing: stillWriting(Object.fromEntries(callsByAgent(e.calls)), model.agents) };
    case 'step':
      return { ...model, steps: keepRecent(model.steps, e.step), status: model.status && movedOn(model.status, e.step) };
    case 'decision':
      return { ...model, decisions: keepRecent(model.decisions, e.decision) };
    case 'warning':
      return { ...model, warnings: keepRecent(model.warnings, e.text) };
    // the status shows the pending requests
    case 'phase':
    case 'request':
      return model;
    default: {
      const never: never = e;
      return never;
    }
  }
}
