/**
 * The live output of a model call that is still running (docs/observability.md, "Live output"): the
 * one heartbeat detail of every model-call activity (callAgent, callModel, the judge, the selector,
 * compaction). It carries the tail of the text the current request has written so far, so a client
 * can show an agent's growing reply from the run's pending activities without a history event.
 * The activities write it (activities/llm.ts); a client reads it back here too: each call's
 * heartbeat detail checked to be a {@link LiveText} ({@link readLiveText}), and the run's in-flight
 * agents joined with the text each is writing. Details that are not a LiveText (an older worker, a
 * tool's own details, anything malformed) are no call. Pure: `src/client/pending-activities.ts`
 * does the reading.
 */
import type { LlmFailureDetails } from '../llm/contract';

/** The heartbeat detail of a model call in flight. */
export interface LiveText {
  /** The agent the call is for (the judged agent for the judge, `team` for a selector). */
  agent: string;
  kind: LlmFailureDetails['kind'];
  /** The last {@link LIVE_TEXT_LIMITS.tailChars} characters of the content written so far by the current request. */
  partialText: string;
  /** Characters (UTF-16 code units) of content written so far by the current request. */
  chars: number;
}

/** Bounds of the live text: far below the SDK's 512 KiB warning on heartbeat details. */
export const LIVE_TEXT_LIMITS = {
  /** Characters of the reply's end that a detail carries. */
  tailChars: 2048,
} as const;

const KINDS = new Set<string>(['agent', 'judge', 'compaction', 'selector']);

/** The last `max` characters of `text`, never starting inside a surrogate pair. */
export function textTail(text: string, max: number = LIVE_TEXT_LIMITS.tailChars): string {
  if (text.length <= max) return text;
  let start = text.length - max;
  const first = text.charCodeAt(start);
  if (first >= 0xdc00 && first <= 0xdfff) start += 1;
  return text.slice(start);
}

/**
 * The text a request has written so far, kept as a bounded tail and a count, so a long reply costs
 * the activity a few KiB however long it grows.
 */
export class LiveTextBuffer {
  private tail = '';
  private count = 0;

  constructor(
    private readonly agent: string,
    private readonly kind: LiveText['kind'],
  ) {}

  /** Adds a content delta; returns whether anything was added. */
  append(delta: string): boolean {
    if (delta === '') return false;
    this.count += delta.length;
    this.tail += delta;
    // trimmed only now and then, so appending stays linear
    if (this.tail.length > 4 * LIVE_TEXT_LIMITS.tailChars) this.tail = textTail(this.tail);
    return true;
  }

  /** Characters written so far. */
  get chars(): number {
    return this.count;
  }

  /** The heartbeat detail now. */
  snapshot(): LiveText {
    return { agent: this.agent, kind: this.kind, partialText: textTail(this.tail), chars: this.count };
  }
}

/**
 * The live text in an activity's decoded heartbeat details (the array, or its first element),
 * or undefined when they are not one: a tool call, an older worker, anything malformed.
 */
export function readLiveText(details: unknown): LiveText | undefined {
  const value = Array.isArray(details) ? details[0] : details;
  if (typeof value !== 'object' || value === null) return undefined;
  const { agent, kind, partialText, chars } = value as Record<string, unknown>;
  if (typeof agent !== 'string' || typeof kind !== 'string' || !KINDS.has(kind)) return undefined;
  if (typeof partialText !== 'string' || typeof chars !== 'number' || !Number.isFinite(chars)) return undefined;
  return { agent, kind: kind as LiveText['kind'], partialText, chars };
}

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
