/**
 * The caps on what one model reply may hold in a worker (docs/semantics.md, "Bounds on hostile
 * input"): the bytes of the reply (`max_reply_bytes`: a whole body's bytes; a stream's reply as the
 * model wrote it, its text, refusal and tool calls, without the events' framing), and the bytes of
 * one server-sent line or event (`max_event_bytes`), which must be held whole before it can be read.
 * A role may set either per model, within the bounds here; reaching a cap fails the call without a
 * retry (the next attempt would read the same flood). Pure: the schema, the worker's graph check and
 * the activities read the same numbers.
 */
const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * The caps' defaults and the bounds a role may set them within. 16 MiB of reply is millions of
 * tokens, far more than any model writes in one call (a stream's framing, ~230 bytes a token as
 * OpenAI sends it, does not count); 4 MiB of one event holds a whole long reply or a large tool call
 * sent in one chunk, as some servers do. The most a role may set keeps eight such replies
 * at once, as eight agents of one wave make them, within a worker's default heap.
 */
export const REPLY_CAPS = {
  defaultReplyBytes: 16 * MIB,
  defaultEventBytes: 4 * MIB,
  /** The least either cap may be set to: an event of a few hundred bytes must fit. */
  minBytes: 4 * KIB,
  maxReplyBytes: 64 * MIB,
  maxEventBytes: 64 * MIB,
} as const;

/** The caps one call is held to. */
export interface ReplyCaps {
  replyBytes: number;
  eventBytes: number;
}

/** `n` within `[min, max]` when it is a whole number, else `fallback`: a graph built by hand cannot lift a cap past its bound. */
function bounded(n: number | undefined, fallback: number, max: number): number {
  if (n === undefined || !Number.isInteger(n)) return fallback;
  return Math.min(max, Math.max(REPLY_CAPS.minBytes, n));
}

/** The caps of a call on `model` (a `ResolvedModel`): its own settings, else the defaults; an event is never allowed more than the reply. */
export function replyCaps(model: { maxReplyBytes?: number; maxEventBytes?: number } | undefined): ReplyCaps {
  const replyBytes = bounded(model?.maxReplyBytes, REPLY_CAPS.defaultReplyBytes, REPLY_CAPS.maxReplyBytes);
  const eventBytes = bounded(model?.maxEventBytes, REPLY_CAPS.defaultEventBytes, REPLY_CAPS.maxEventBytes);
  return { replyBytes, eventBytes: Math.min(eventBytes, replyBytes) };
}

/** A number of bytes as people read it: `16 MiB`, `512 KiB`, else `1500 bytes`. */
export function bytesText(n: number): string {
  if (n >= MIB && n % MIB === 0) return `${n / MIB} MiB`;
  if (n >= KIB && n % KIB === 0) return `${n / KIB} KiB`;
  return `${n} bytes`;
}
