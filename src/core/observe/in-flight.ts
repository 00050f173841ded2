/**
 * The model calls of a run that are writing now, as a client reads them back from the run's pending
 * activities (docs/observability.md, "Live output"): each call's heartbeat detail checked to be a
 * {@link LiveText}, and the run's in-flight agents joined with the text each is writing. Details
 * that are not a LiveText (an older worker, a tool's own details, anything malformed) are no call.
 * Pure: `src/client/pending-activities.ts` does the reading.
 */
import { LIVE_TEXT_LIMITS, readLiveText, textTail, type LiveText } from './live';

/** The longest agent name read from a heartbeat (longer: not a troupe heartbeat). */
const MAX_AGENT_CHARS = 512;

/** A model call in flight, with what it has written so far. */
export interface InFlightCall extends LiveText {
  /** The activity's type (`callAgent`, `callModel`, `judgeConvergence`, …). */
  activityType: string;
  activityId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** When the worker last reported the text (ISO 8601), when the server knows. */
  lastHeartbeatAt?: string;
}

/** An in-flight agent as `troupe status --json` shows it: its name, and its model call's text when one is writing. */
export type InFlightEntry = { agent: string } & Partial<Omit<InFlightCall, 'agent'>>;

/**
 * `value` (one decoded heartbeat detail) as a LiveText that is safe to show, or undefined: the
 * contract's shape ({@link readLiveText}), a non-empty agent name of sane length and a whole,
 * non-negative count. A text longer than a heartbeat carries is cut to its end, and `chars` is
 * never less than the text's length.
 */
export function parseLiveText(value: unknown): LiveText | undefined {
  if (Array.isArray(value)) return undefined;
  const live = readLiveText(value);
  if (!live || live.agent.length === 0 || live.agent.length > MAX_AGENT_CHARS) return undefined;
  if (!Number.isSafeInteger(live.chars) || live.chars < 0) return undefined;
  const text = live.partialText.length > LIVE_TEXT_LIMITS.tailChars ? textTail(live.partialText) : live.partialText;
  return { agent: live.agent, kind: live.kind, partialText: text, chars: Math.max(live.chars, text.length) };
}

/** Whether `a` is a better call to show for its agent than `b`: the agent's own call first, then the latest report. */
function better(a: InFlightCall, b: InFlightCall): boolean {
  if ((a.kind === 'agent') !== (b.kind === 'agent')) return a.kind === 'agent';
  return (a.lastHeartbeatAt ?? '') > (b.lastHeartbeatAt ?? '');
}

/** The call to show for each agent that has one writing: its own model call, else (a compaction, the judge) the latest. */
export function callsByAgent(calls: readonly InFlightCall[]): Map<string, InFlightCall> {
  const byAgent = new Map<string, InFlightCall>();
  for (const c of calls) {
    const seen = byAgent.get(c.agent);
    if (!seen || better(c, seen)) byAgent.set(c.agent, c);
  }
  return byAgent;
}

/**
 * The run's in-flight agents (`status.inFlight`, in its order), each with the text its model call
 * is writing when one is. Calls of agents not in flight (a judge after its agent ended) are left
 * out: `inFlight` lists agents, as the status query does.
 */
export function inFlightEntries(agents: readonly string[], calls: readonly InFlightCall[]): InFlightEntry[] {
  const byAgent = callsByAgent(calls);
  return agents.map((agent) => {
    const c = byAgent.get(agent);
    return c ? { ...c } : { agent };
  });
}
