/**
 * The signal contract of a run: every signal's name and the zod schema of its payload. The zod
 * schemas are the single source of truth: the workflow parses payloads with them, and the typed
 * signal definitions (`src/workflows/messages.ts`), the TypeScript client and the CLI take their
 * payload types from them. A malformed payload becomes a warning text; nothing here throws. Pure.
 */
import { z } from 'zod';
import { SIGNAL_TYPE_RE } from '../config/schema';
import { HUMAN_TEXTS } from './texts';

const NON_EMPTY = 'must be a non-empty string';
const nonEmpty = z.string({ error: NON_EMPTY }).trim().min(1, NON_EMPTY);
const noPayload = z.union([z.undefined(), z.null(), z.strictObject({})]).transform(() => ({}));
/** Who decided (`troupe approve --by NAME`, default the OS user); optional so older clients' payloads still parse. */
const by = z.string().trim().min(1, NON_EMPTY).max(200).optional();

/** The payload schema of every signal. Unknown keys are errors, so a typo is never ignored silently. */
export const SIGNAL_PAYLOAD_SCHEMAS = {
  pause: noPayload,
  resume: noPayload,
  approve: z.strictObject({ requestId: z.string().min(1).optional(), note: z.string().optional(), by }),
  reject: z.strictObject({ requestId: z.string().min(1).optional(), reason: nonEmpty, by }),
  answer: z.strictObject({ requestId: z.string().min(1).optional(), text: nonEmpty, by }),
  message: z.strictObject({ text: nonEmpty, to: z.string().min(1).optional() }),
  signal: z.strictObject({
    type: z.string().regex(SIGNAL_TYPE_RE, 'must match [a-z][a-z0-9_]*'),
    payload: z.unknown().optional(),
  }),
  stop: z.strictObject({ reason: z.string().optional() }),
} as const;

/** Signal names (part of the CLI contract). */
export type SignalName = keyof typeof SIGNAL_PAYLOAD_SCHEMAS;

/** Signal names in a list. */
export const SIGNAL_NAMES = Object.keys(SIGNAL_PAYLOAD_SCHEMAS) as SignalName[];

/** What a sender passes for each signal (zod's input side: optional fields may be left out). */
export type SignalInputs = { [K in SignalName]: z.input<(typeof SIGNAL_PAYLOAD_SCHEMAS)[K]> };

/** The parsed payload type of each signal. */
export type SignalPayloads = { [K in SignalName]: z.output<(typeof SIGNAL_PAYLOAD_SCHEMAS)[K]> };

/** A parsed payload, or the warning to record instead. */
export type ParsedPayload<T> = { ok: true; value: T } | { ok: false; warning: string };



function issueText(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** Parse a signal's raw payload: the typed value, or the warning `ignored malformed <name> signal: <issue>`. */
export function parseSignalPayload<K extends SignalName>(name: K, raw: unknown): ParsedPayload<SignalPayloads[K]>;
/** Parse a payload of a signal named at run time (an unknown name is a warning). */
export function parseSignalPayload(name: string, raw: unknown): ParsedPayload<unknown>;
export function parseSignalPayload(name: string, raw: unknown): ParsedPayload<unknown> {
  if (!Object.prototype.hasOwnProperty.call(SIGNAL_PAYLOAD_SCHEMAS, name)) {
    return { ok: false, warning: HUMAN_TEXTS.signals.unknownSignal(name) };
  }
  const schema: z.ZodType = SIGNAL_PAYLOAD_SCHEMAS[name as SignalName];
  const parsed = schema.safeParse(name === 'pause' || name === 'resume' ? raw : (raw ?? {}));
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, warning: HUMAN_TEXTS.signals.malformed(name, issueText(parsed.error)) };
}
