/**
 * The live output of a model call that is still running (docs/observability.md, "Live output"): the
 * one heartbeat detail of every model-call activity (callAgent, callModel, the judge, the selector,
 * compaction). It carries the tail of the text the current request has written so far, so a client
 * can show an agent's growing reply from the run's pending activities without a history event.
 * Pure; the activities write it (activities/llm.ts), clients read it back with {@link readLiveText}.
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
