/**
 * Requests to humans and their decisions, owned in one place. A run opens a request when an agent
 * asks through the `signal` tool (`need_approval`, `need_clarification`, `blocked`: the agent's
 * result is held back from routing until a human decides) or when `approval.before_exit` asks for
 * the final result. A decision (`approve`, `reject`, `answer`: an Update, or a signal from an older
 * client) is matched to the named open request, or to the only one, by one verdict
 * ({@link checkDecision}, the Updates' validator); the workflow later takes the decided requests and
 * acts on them in the order the decisions arrived. A decision on a gate ({@link GATE_KINDS}) must
 * name the digest of what the gate shows (`digest.ts`), or it is refused. Ids are `r1`, `r2`, …
 * Pure: time is passed in.
 */
import type { Trigger } from '../waves/types';
import { gateDigest } from './digest';
import { HUMAN_TEXTS } from './texts';

/**
 * A kind of request a run can wait on: the `signal` tool's three types, `approval.before_exit`, and a
 * call of a tool that `approval.tools` names (`tool_call`).
 */
export type RequestKind = 'approval' | 'clarification' | 'blocked' | 'before_exit' | 'tool_call' | 'handoff';

/** A kind of decision: the name of its Update (and of the signal older clients send). */
export type DecisionKind = 'approve' | 'reject' | 'answer';

/** Signal-tool types that open a request, with the kind they open. */
export const REQUEST_SIGNAL_KINDS: Readonly<Record<string, RequestKind>> = {
  need_approval: 'approval',
  need_clarification: 'clarification',
  blocked: 'blocked',
};

/** A human's decision on a request. */
export interface Decision {
  kind: DecisionKind;
  /** The note (approve), reason (reject) or answer text. */
  text?: string;
  /** Workflow time (ms) the decision arrived. */
  at: number;
  /** Who decided, as the sender named them (absent from clients older than `--by`). */
  by?: string;
  /** The digest of what the sender saw, as the request showed it (a gate's decision must name it). */
  digest?: string;
}

/**
 * A decision as the run remembers it after acting on it: the status view, the transcript and the
 * RunResult show who decided what, and when (the request itself leaves the state once acted on).
 */
export interface DecisionRecord {
  requestId: string;
  /** The kind of request decided. */
  request: RequestKind;
  /** The agent whose request it was, when an agent asked. */
  agent?: string;
  kind: DecisionKind;
  by?: string;
  /** ISO time the decision arrived (workflow time). */
  at: string;
  /** The note (approve), reason (reject) or answer text. */
  text?: string;
  /** The digest the decision named (decisions on gates). */
  digest?: string;
  /**
   * Why the decision was refused, when it was: a decision on a gate that named no digest, or not
   * the one the request shows. A refused decision decides nothing; the request stays open.
   */
  refused?: string;
}

/** A request waiting for a decision, as the `status` query and the CLI show it. */
export interface PendingRequest {
  /** `r1`, `r2`, … from the run's request counter. */
  id: string;
  kind: RequestKind;
  agent?: string;
  summary: string;
  /** Workflow time (ms) the wait began. */
  since: number;
  payload?: unknown;
  /**
   * A gate's digest of what it shows (`sha256:<hex>`, `digest.ts`): `approve` and `reject` must
   * name it. Absent on requests that are no gate.
   */
  digest?: string;
}

/** A request as the run state keeps it, from opening until its decision has been acted on. */
export interface HumanRequest extends PendingRequest {
  /** The agent result held back from routing until the decision (signal-tool requests). */
  held?: { text: string; triggers: Trigger[] };
  /** Set when a decision is applied; the request leaves the state when the run acts on it. */
  decision?: Decision;
}

/**
 * The part of the run state this module owns.
 * @internal exported for tests
 */
export interface RequestBook {
  requests: HumanRequest[];
  requestCounter: number;
  /**
   * Decision signals that named a request not opened yet, kept until it opens (absent in state
   * written before they were kept). A decision can overtake the result that opens its request: a
   * `status` query may be answered from a workflow task that later failed, and on the task's retry
   * the SDK delivers signals and Updates before the activity result that opens the request. An
   * Update is refused then (`not_open_yet`) and its sender asks again; a signal cannot be, so it is
   * kept.
   */
  early?: EarlyDecision[];
}

/** A decision that arrived before its request opened. */
interface EarlyDecision {
  requestId: string;
  decision: Decision;
}

/**
 * Request kinds that gate an action: only `approve` runs it, only `reject` refuses it. An `answer`
 * (say "no - do not deploy") is never taken for an approval.
 */
export const GATE_KINDS: readonly RequestKind[] = ['tool_call', 'before_exit'];

/**
 * How far ahead of the last opened request a decision is `not_open_yet` (a signal's kept), and how
 * many signals are kept at most.
 * @internal exported for tests
 */
export const EARLY_DECISION_LIMITS = { ahead: 32, kept: 32 } as const;

/**
 * The id of the `n`-th request of a run (1-based): `r1`, `r2`, …
 * @internal exported for tests
 */
export function formatRequestId(n: number): string {
  return `r${n}`;
}

/** What to open a request with. */
export interface RequestToOpen {
  kind: RequestKind;
  agent?: string;
  summary: string;
  payload?: unknown;
  held?: HumanRequest['held'];
  /**
   * What a gate shows, exactly, which its digest covers: the tool (empty for `before_exit`) and the
   * arguments text the tool will get, or the final text.
   */
  gate?: { tool: string; text: string };
  now: number;
}

/** Open a request and add it to the book; a gate gets the digest of what it shows. */
export function openRequest(book: RequestBook, req: RequestToOpen): HumanRequest {
  book.requestCounter += 1;
  const id = formatRequestId(book.requestCounter);
  const digest = GATE_KINDS.includes(req.kind)
    ? gateDigest({ kind: req.kind, requestId: id, agent: req.agent ?? '', tool: req.gate?.tool ?? '', text: req.gate?.text ?? '' })
    : undefined;
  const request: HumanRequest = {
    id,
    kind: req.kind,
    agent: req.agent,
    summary: req.summary.slice(0, 500),
    since: req.now,
    payload: req.payload,
    ...(digest !== undefined ? { digest } : {}),
    ...(req.held ? { held: req.held } : {}),
  };
  book.requests.push(request);
  return request;
}

/** Requests still waiting for a decision, in the order they were opened (the `status` view). */
export function pendingRequests(book: RequestBook): PendingRequest[] {
  return book.requests
    .filter((r) => r.decision === undefined)
    .map(({ id, kind, agent, summary, since, payload, digest }) => ({ id, kind, agent, summary, since, payload, ...(digest !== undefined ? { digest } : {}) }));
}

/** Whether any request waits for a decision. */
export function awaitingHumans(book: RequestBook): boolean {
  return book.requests.some((r) => r.decision === undefined);
}

/** Whether a held agent result waits for a decision or for the run to act on one. */
export function holdsResults(book: RequestBook): boolean {
  return book.requests.some((r) => r.held !== undefined);
}

/**
 * Why a decision is refused, as a program reads it (docs/semantics.md, "Humans in the loop"):
 * `malformed` (its payload), `none_pending`, `ambiguous` (several open and no id), `not_pending` (the
 * id names no request the run opened), `decided` (its request was decided already), `not_open_yet` (a
 * request a little ahead of the last one opened: it can overtake the result that opens it),
 * `answer_to_gate` (only approve and reject decide a gate), `no_digest` and `other_digest` (a gate's
 * decision must name the digest of what it shows); `ended` (the run is over: the client says so, no
 * workflow is left to ask).
 */
export type RefusalCode =
  | 'malformed'
  | 'none_pending'
  | 'ambiguous'
  | 'not_pending'
  | 'decided'
  | 'not_open_yet'
  | 'answer_to_gate'
  | 'no_digest'
  | 'other_digest'
  | 'ended';

/** A refused decision: its code, the request it named or matched, and why, in a sentence. */
export interface DecisionRefusal {
  code: RefusalCode;
  /** The request the decision named, or the only one open it went to. */
  requestId?: string;
  /** Why (`HUMAN_TEXTS.reasons`). */
  reason: string;
}

/** What {@link checkDecision} says of a decision, before anything changes. */
export type DecisionVerdict =
  | { ok: true; request: PendingRequest }
  | {
      ok: false;
      refusal: DecisionRefusal;
      /** The open gate the decision matched but may not decide (a refusal recorded as refused, for a signal). */
      request?: PendingRequest;
    };

/**
 * What becomes of a decision signal: applied to its request, kept until its request opens, refused (a
 * decision on a gate that names no digest or another one: recorded as refused, the request stays
 * open), or ignored (it matches no request, or answers a gate) with a warning.
 */
export type DecideOutcome =
  | { ok: true; request: HumanRequest & { decision: Decision } }
  | { ok: false; kept: true }
  | { ok: false; kept?: false; refused: { request: PendingRequest; reason: string }; warning: string }
  | { ok: false; kept?: false; refused?: undefined; warning: string };

/** The number of a request id (`r7` → 7), or undefined for anything else. */
function requestNumber(id: string): number | undefined {
  const m = /^r([1-9]\d{0,8})$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

/**
 * Why no open request matches `requestId` (or, without one, why no single one is open): none open,
 * several, a request decided already, one a little ahead of the last opened, or none of the run's.
 */
function unmatched(book: RequestBook, pending: readonly PendingRequest[], requestId: string | undefined): DecisionRefusal {
  const ids = pending.map((p) => p.id);
  const why = HUMAN_TEXTS.reasons;
  if (requestId === undefined) {
    return pending.length === 0 ? { code: 'none_pending', reason: why.noneToDecide } : { code: 'ambiguous', reason: why.ambiguous(ids) };
  }
  const n = requestNumber(requestId);
  if (n !== undefined && n <= book.requestCounter) return { code: 'decided', requestId, reason: why.decided(requestId, ids) };
  if (n !== undefined && n <= book.requestCounter + EARLY_DECISION_LIMITS.ahead) return { code: 'not_open_yet', requestId, reason: why.notOpenYet(requestId, ids) };
  return { code: 'not_pending', requestId, reason: why.notPending(requestId, ids) };
}

/**
 * Why a decision may not decide `request`, or undefined when it may: an answer never decides a
 * gate, and a gate's approve or reject must name the digest the gate shows.
 */
function gateRefusal(request: PendingRequest, decision: Decision): DecisionRefusal | undefined {
  if (!GATE_KINDS.includes(request.kind)) return undefined;
  const requestId = request.id;
  if (decision.kind === 'answer') return { code: 'answer_to_gate', requestId, reason: HUMAN_TEXTS.reasons.answerToGate(requestId, request.kind) };
  // a gate opened by a release before digests shows none, and is decided as it was then
  if (request.digest === undefined || decision.digest === request.digest) return undefined;
  return decision.digest === undefined
    ? { code: 'no_digest', requestId, reason: HUMAN_TEXTS.requests.noDigest }
    : { code: 'other_digest', requestId, reason: HUMAN_TEXTS.requests.otherDigest(decision.digest) };
}

/**
 * Whether a decision decides a request, and why not, without changing anything: the validator of
 * the `approve`, `reject` and `answer` Updates, and the first step of their signals
 * (docs/semantics.md, "Humans in the loop"). It matches the named open request, or the only one
 * open; a decision on a gate must name its digest, and an answer never decides one.
 */
export function checkDecision(book: RequestBook, requestId: string | undefined, decision: Decision): DecisionVerdict {
  const pending = pendingRequests(book);
  const request = requestId === undefined ? (pending.length === 1 ? pending[0] : undefined) : pending.find((p) => p.id === requestId);
  if (request === undefined) return { ok: false, refusal: unmatched(book, pending, requestId) };
  const refusal = gateRefusal(request, decision);
  if (refusal === undefined) return { ok: true, request };
  return { ok: false, refusal, ...(refusal.code === 'answer_to_gate' ? {} : { request }) };
}

/**
 * Record a decision signal on the matching open request, as {@link checkDecision} says: the request
 * moves to the end of the book so decided requests are acted on in arrival order; a decision for a
 * request not opened yet is kept until it opens (a signal cannot be sent again: an Update is refused
 * instead, and its sender asks again); a refused or ignored one changes nothing here (the caller
 * records a refusal, `decisions.ts`).
 */
export function decide(book: RequestBook, requestId: string | undefined, decision: Decision): DecideOutcome {
  const verdict = checkDecision(book, requestId, decision);
  if (verdict.ok) return { ok: true, request: applyDecision(book, verdict.request.id, decision) };
  const { refusal, request } = verdict;
  if (refusal.code === 'not_open_yet' && canKeepEarly(book, refusal.requestId as string)) {
    (book.early ??= []).push({ requestId: refusal.requestId as string, decision });
    return { ok: false, kept: true };
  }
  if (request !== undefined) {
    return { ok: false, refused: { request, reason: refusal.reason }, warning: HUMAN_TEXTS.requests.refused(decision.kind, request.id, request.kind, refusal.reason) };
  }
  // a decision ahead that cannot be kept reads as one for no request of the run
  const reason = refusal.code === 'not_open_yet' ? HUMAN_TEXTS.reasons.notPending(refusal.requestId as string, pendingRequests(book).map((p) => p.id)) : refusal.reason;
  return { ok: false, warning: HUMAN_TEXTS.requests.ignored(decision.kind, reason) };
}

/**
 * Record `decision` on the open request `requestId` ({@link checkDecision} said it decides it): the
 * request moves to the end of the book, so decided requests are acted on in arrival order.
 */
function applyDecision(book: RequestBook, requestId: string, decision: Decision): HumanRequest & { decision: Decision } {
  const index = book.requests.findIndex((r) => r.id === requestId);
  const [request] = book.requests.splice(index, 1);
  request.decision = decision;
  book.requests.push(request);
  return request as HumanRequest & { decision: Decision };
}

/** Whether a decision for `requestId` (a little ahead, not opened yet) may be kept: one per id, a bounded number. */
function canKeepEarly(book: RequestBook, requestId: string): boolean {
  const early = book.early ?? [];
  return early.length < EARLY_DECISION_LIMITS.kept && !early.some((e) => e.requestId === requestId);
}

/**
 * Apply the decision kept for `request` (just opened), if one was: as if it had arrived now, so an
 * answer to a gate is turned away here too, and a kept decision on a gate applies only when it names
 * the digest the gate opened with (otherwise it is refused).
 */
export function decideKept(book: RequestBook, request: HumanRequest): { outcome: DecideOutcome; decision: Decision } | undefined {
  const index = book.early?.findIndex((e) => e.requestId === request.id) ?? -1;
  if (index < 0 || !book.early) return undefined;
  const [kept] = book.early.splice(index, 1);
  return { outcome: decide(book, request.id, kept.decision), decision: kept.decision };
}

/** Decisions kept for requests that never opened (reported when the run ends). */
export function keptDecisions(book: RequestBook): EarlyDecision[] {
  return book.early ?? [];
}

/** The record of a decision on `request`: applied (the request's own), or refused with its reason. */
export function decisionRecord(request: PendingRequest, decision: Decision, refused?: string): DecisionRecord {
  return {
    requestId: request.id,
    request: request.kind,
    ...(request.agent !== undefined ? { agent: request.agent } : {}),
    kind: decision.kind,
    ...(decision.by !== undefined ? { by: decision.by } : {}),
    at: new Date(decision.at).toISOString(),
    ...(decision.text !== undefined ? { text: decision.text } : {}),
    ...(decision.digest !== undefined ? { digest: decision.digest } : {}),
    ...(refused !== undefined ? { refused } : {}),
  };
}

/** Take the decided requests out of the book, in the order their decisions arrived. */
export function takeDecided(book: RequestBook, which: (r: HumanRequest) => boolean = () => true): HumanRequest[] {
  const taken = book.requests.filter((r) => r.decision !== undefined && which(r));
  book.requests = book.requests.filter((r) => !taken.includes(r));
  return taken;
}
