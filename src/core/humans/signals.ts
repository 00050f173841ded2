/**
 * The signal contract of a run: every signal's name and the zod schema of its payload. The zod
 * schemas are the single source of truth: the workflow parses payloads with them, and the typed
 * signal definitions (`src/contract.ts`, handled in `src/workflows/handlers.ts`), the TypeScript client and the CLI take their
 * payload types from them. A malformed payload becomes a warning text; nothing here throws. Pure.
 */
import { z } from 'zod';
import { clip } from '../config/limits';
import { SIGNAL_TYPE_RE } from '../config/schema';
import { recapText, utf8ByteLength } from '../text/utf8';
import { HUMAN_TEXTS } from './texts';

/**
 * Bounds of what a signal may carry into the run state (docs/semantics.md, "Bounds on hostile input"): texts
 * longer than {@link MAX_SIGNAL_TEXT_BYTES} are cut with a marker; a `signal` payload larger than
 * {@link MAX_SIGNAL_PAYLOAD_BYTES} as JSON, or a name longer than {@link MAX_SIGNAL_NAME_CHARS}, makes
 * the signal malformed.
 * @internal exported for tests
 */
export const MAX_SIGNAL_TEXT_BYTES = 16 * 1024;
/** @internal exported for tests */
export const MAX_SIGNAL_PAYLOAD_BYTES = 16 * 1024;
const MAX_SIGNAL_NAME_CHARS = 64;

const NON_EMPTY = 'must be a non-empty string';
const cut = (t: string) => recapText(t, MAX_SIGNAL_TEXT_BYTES);
const nonEmpty = z.string({ error: NON_EMPTY }).trim().min(1, NON_EMPTY).transform(cut);
const text = z.string().transform(cut);
const name = z.string().min(1).max(MAX_SIGNAL_NAME_CHARS);
const noPayload = z.union([z.undefined(), z.null(), z.strictObject({})]).transform(() => ({}));
/** Who decided (`troupe approve --by NAME`, default the OS user); optional so older clients' payloads still parse. */
const by = z.string().trim().min(1, NON_EMPTY).max(200).optional();
/** The form of a gate digest (`core/humans/digest.ts`): anything else is a malformed payload. */
const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

/**
 * The digest a gate decision names (`sha256:` and 64 lowercase hex characters), optional since only
 * decisions on gates need one. A regex of its own: zod resets a pattern's lastIndex.
 */
function digest() {
  return z
    .string()
    .regex(new RegExp(DIGEST_RE.source, DIGEST_RE.flags), 'must be sha256: and 64 lowercase hex characters, as the request shows it')
    .optional();
}

function jsonBytes(v: unknown): number {
  try {
    return utf8ByteLength(JSON.stringify(v) ?? '');
  } catch {
    return Infinity;
  }
}

/**
 * The payload schema of every signal. Unknown keys are errors, so a typo is never ignored silently.
 * Built once, on first use, and kept out of the module's exports: the worker shares troupe's modules
 * between runs and freezes what they export (`bundleOptions` in src/worker.ts), and zod completes a
 * schema's methods on first use and resets its patterns' `lastIndex`, which frozen objects refuse.
 */
function buildSignalSchemas() {
  return {
    pause: noPayload,
    resume: noPayload,
    approve: z.strictObject({ requestId: name.optional(), note: text.optional(), by, digest: digest() }),
    reject: z.strictObject({ requestId: name.optional(), reason: nonEmpty, by, digest: digest() }),
    answer: z.strictObject({ requestId: name.optional(), text: nonEmpty, by }),
    message: z.strictObject({ text: nonEmpty, to: name.optional() }),
    signal: z.strictObject({
      // a regex of its own: zod resets a pattern's lastIndex, and the exported one is frozen
      type: z.string().max(MAX_SIGNAL_NAME_CHARS).regex(new RegExp(SIGNAL_TYPE_RE.source, SIGNAL_TYPE_RE.flags), 'must match [a-z][a-z0-9_]*'),
      payload: z
        .unknown()
        .refine((p) => jsonBytes(p) <= MAX_SIGNAL_PAYLOAD_BYTES, `must be at most ${MAX_SIGNAL_PAYLOAD_BYTES / 1024} KiB as JSON`)
        .optional(),
    }),
    stop: z.strictObject({ reason: text.optional() }),
  } as const;
}

type SignalSchemas = ReturnType<typeof buildSignalSchemas>;
let schemas: SignalSchemas | undefined;

/**
 * The payload schemas of the signals (built on first use).
 * @internal exported for tests
 */
export function signalPayloadSchemas(): SignalSchemas {
  return (schemas ??= buildSignalSchemas());
}

/** Signal names (part of the CLI contract). */
export type SignalName = keyof SignalSchemas;

/** What a sender passes for each signal (zod's input side: optional fields may be left out). */
export type SignalInputs = { [K in SignalName]: z.input<SignalSchemas[K]> };

/** The parsed payload type of each signal. */
type SignalPayloads = { [K in SignalName]: z.output<SignalSchemas[K]> };

/** A parsed payload, or the warning to record instead. */
type ParsedPayload<T> = { ok: true; value: T } | { ok: false; warning: string };

function issueText(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.map((p) => clip(String(p))).join('.')}: ${clip(i.message)}` : clip(i.message)))
    .join('; ');
}

/**
 * Parse a payload of the message `name` (a signal, or a decision Update, which takes the payload of
 * its signal): the typed value, or the issue in a line (an unknown name is one).
 */
export function parsePayload<K extends SignalName>(name: K, raw: unknown): { ok: true; value: SignalPayloads[K] } | { ok: false; issue: string };
/** Parse a payload of a message named at run time. */
export function parsePayload(name: string, raw: unknown): { ok: true; value: unknown } | { ok: false; issue: string };
export function parsePayload(name: string, raw: unknown): { ok: true; value: unknown } | { ok: false; issue: string } {
  const all = signalPayloadSchemas();
  if (!Object.prototype.hasOwnProperty.call(all, name)) return { ok: false, issue: HUMAN_TEXTS.signals.unknownSignal(name) };
  const schema: z.ZodType = all[name as SignalName];
  const parsed = schema.safeParse(name === 'pause' || name === 'resume' ? raw : (raw ?? {}));
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issue: issueText(parsed.error) };
}

/** Parse a signal's raw payload: the typed value, or the warning `ignored malformed <name> signal: <issue>`. */
export function parseSignalPayload<K extends SignalName>(name: K, raw: unknown): ParsedPayload<SignalPayloads[K]>;
/** Parse a payload of a signal named at run time (an unknown name is a warning). */
export function parseSignalPayload(name: string, raw: unknown): ParsedPayload<unknown>;
export function parseSignalPayload(name: string, raw: unknown): ParsedPayload<unknown> {
  if (!Object.prototype.hasOwnProperty.call(signalPayloadSchemas(), name)) return { ok: false, warning: HUMAN_TEXTS.signals.unknownSignal(name) };
  const parsed = parsePayload(name, raw);
  return parsed.ok ? parsed : { ok: false, warning: HUMAN_TEXTS.signals.malformed(name, parsed.issue) };
}
