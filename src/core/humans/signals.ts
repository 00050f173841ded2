/**
 * Humans in the loop (SPEC §7, §11.6): pending requests, matching a decision to one, and the zod
 * schemas of every signal payload. A malformed payload or a decision that matches no request (or
 * several) becomes a warning text; nothing here throws. Pure; zod is the single source of truth
 * for the payload types.
 */
import { z } from 'zod';
import { SIGNAL_TYPE_RE } from '../config/schema';

/** Kinds of request a run can wait on: the `signal` tool's three types and `approval.before_exit`. */
export const HITL_REQUEST_KINDS = ['approval', 'clarification', 'blocked', 'before_exit'] as const;

/** A request kind. */
export type RequestKind = (typeof HITL_REQUEST_KINDS)[number];

/** A request waiting for `approve`/`reject`/`answer`; shown by the `status` query. */
export interface PendingRequest {
  /** `r1`, `r2`, … from the run's request counter. */
  id: string;
  kind: RequestKind;
  agent?: string;
  summary: string;
  /** Workflow time (ms) the wait began. */
  since: number;
  payload?: unknown;
}

/** The id of the `n`-th request of a run (1-based): `r1`, `r2`, … */
export function formatRequestId(n: number): string {
  return `r${n}`;
}

const NON_EMPTY = 'must be a non-empty string';
const nonEmpty = z.string({ error: NON_EMPTY }).trim().min(1, NON_EMPTY);
const noPayload = z.union([z.undefined(), z.null(), z.strictObject({})]).transform(() => ({}));

/** The payload schema of every signal (§7). Unknown keys are errors, so a typo is never ignored silently. */
export const SIGNAL_PAYLOAD_SCHEMAS = {
  pause: noPayload,
  resume: noPayload,
  approve: z.strictObject({ requestId: z.string().min(1).optional(), note: z.string().optional() }),
  reject: z.strictObject({ requestId: z.string().min(1).optional(), reason: nonEmpty }),
  answer: z.strictObject({ requestId: z.string().min(1).optional(), text: nonEmpty }),
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

/** The parsed payload type of each signal. */
export type SignalPayloads = { [K in SignalName]: z.output<(typeof SIGNAL_PAYLOAD_SCHEMAS)[K]> };

/** A decision signal. */
export type DecisionKind = 'approve' | 'reject' | 'answer';

/** A parsed payload, or the warning to record instead. */
export type ParsedPayload<T> = { ok: true; value: T } | { ok: false; warning: string };

/** HITL warning texts, so tests can pin them. */
export const HITL_TEXTS = {
  malformed: (name: string, issue: string) => `ignored malformed ${name} signal: ${issue}`,
  unknownSignal: (name: string) => `ignored unknown signal ${name}`,
  noneToDecide: (d: DecisionKind) => `ignored ${d} signal: no request is pending`,
  notPending: (d: DecisionKind, id: string, pending: string[]) =>
    `ignored ${d} signal: request ${id} is not pending (pending: ${pending.length ? pending.join(', ') : 'none'})`,
  ambiguous: (d: DecisionKind, pending: string[]) =>
    `ignored ${d} signal: ${pending.length} requests are pending (${pending.join(', ')}); name one with requestId (--request)`,
} as const;

function issueText(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** Parse a signal's raw payload: the typed value, or the warning `ignored malformed <name> signal: <issue>`. */
export function parseSignalPayload<K extends SignalName>(
  name: K,
  raw: unknown,
): ParsedPayload<SignalPayloads[K]>;
/** Parse a payload of a signal named at run time (an unknown name is a warning). */
export function parseSignalPayload(name: string, raw: unknown): ParsedPayload<unknown>;
export function parseSignalPayload(name: string, raw: unknown): ParsedPayload<unknown> {
  if (!Object.prototype.hasOwnProperty.call(SIGNAL_PAYLOAD_SCHEMAS, name)) {
    return { ok: false, warning: HITL_TEXTS.unknownSignal(name) };
  }
  const schema: z.ZodType = SIGNAL_PAYLOAD_SCHEMAS[name as SignalName];
  const parsed = schema.safeParse(name === 'pause' || name === 'resume' ? raw : (raw ?? {}));
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, warning: HITL_TEXTS.malformed(name, issueText(parsed.error)) };
}

/**
 * Match a decision to a pending request: the named one (`requestId`), or the only one pending. No
 * match, nothing pending, or several pending without an id → a warning (§11.6). `ref` is the
 * request id or the parsed payload carrying it.
 */
export function resolveDecision(
  pending: readonly PendingRequest[],
  ref: string | undefined | { requestId?: string },
  decision: DecisionKind,
): { ok: true; request: PendingRequest } | { ok: false; warning: string } {
  const id = typeof ref === 'object' && ref !== null ? ref.requestId : ref;
  const ids = pending.map((p) => p.id);
  if (id !== undefined) {
    const request = pending.find((p) => p.id === id);
    return request ? { ok: true, request } : { ok: false, warning: HITL_TEXTS.notPending(decision, id, ids) };
  }
  if (pending.length === 0) return { ok: false, warning: HITL_TEXTS.noneToDecide(decision) };
  if (pending.length > 1) return { ok: false, warning: HITL_TEXTS.ambiguous(decision, ids) };
  return { ok: true, request: pending[0] };
}
