/**
 * Requests to humans and their decisions, owned in one place. A run opens a request when an agent
 * asks through the `signal` tool (`need_approval`, `need_clarification`, `blocked`: the agent's
 * result is held back from routing until a human decides) or when `approval.before_exit` asks for
 * the final result. A decision signal (`approve`, `reject`, `answer`) is matched to the named open
 * request, or to the only one; the workflow later takes the decided requests and acts on them in
 * the order the decisions arrived. Ids are `r1`, `r2`, … Pure: time is passed in.
 */
import type { Trigger } from '../waves/types';
import { HUMAN_TEXTS } from './texts';

/**
 * A kind of request a run can wait on: the `signal` tool's three types, `approval.before_exit`, and a
 * call of a tool that `approval.tools` names (`tool_call`).
 */
export type RequestKind = 'approval' | 'clarification' | 'blocked' | 'before_exit' | 'tool_call' | 'handoff';

/** A decision signal. */
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
}

/** A request as the run state keeps it, from opening until its decision has been acted on. */
export interface HumanRequest extends PendingRequest {
  /** The agent result held back from routing until the decision (signal-tool requests). */
  held?: { text: string; triggers: Trigger[] };
  /** Set by the decision signal; the request leaves the state when the run acts on it. */
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
   * Decisions that named a request not opened yet, kept until it opens (absent in state written
   * before they were kept). A decision can overtake the result that opens its request: a `status`
   * query may be answered from a workflow task that later failed, and on the task's retry the SDK
   * delivers the signal before the activity result that opens the request.
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
 * How far ahead of the last opened request a decision is kept, and how many are kept at most.
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

/** Open a request and add it to the book. */
export function openRequest(
  book: RequestBook,
  req: { kind: RequestKind; agent?: string; summary: string; payload?: unknown; held?: HumanRequest['held']; now: number },
): HumanRequest {
  book.requestCounter += 1;
  const request: HumanRequest = {
    id: formatRequestId(book.requestCounter),
    kind: req.kind,
    agent: req.agent,
    summary: req.summary.slice(0, 500),
    since: req.now,
    payload: req.payload,
    ...(req.held ? { held: req.held } : {}),
  };
  book.requests.push(request);
  return request;
}

/** Requests still waiting for a decision, in the order they were opened (the `status` view). */
export function pendingRequests(book: RequestBook): PendingRequest[] {
  return book.requests
    .filter((r) => r.decision === undefined)
    .map(({ id, kind, agent, summary, since, payload }) => ({ id, kind, agent, summary, since, payload }));
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
 * Match a decision to an open request: the named one (`requestId`), or the only one open. No match,
 * nothing open, or several open without an id → a warning, and nothing changes.
 */
function resolveDecision(
  pending: readonly PendingRequest[],
  requestId: string | undefined,
  decision: DecisionKind,
): { ok: true; request: PendingRequest } | { ok: false; warning: string } {
  const ids = pending.map((p) => p.id);
  if (requestId !== undefined) {
    const request = pending.find((p) => p.id === requestId);
    return request ? { ok: true, request } : { ok: false, warning: HUMAN_TEXTS.requests.notPending(decision, requestId, ids) };
  }
  if (pending.length === 0) return { ok: false, warning: HUMAN_TEXTS.requests.noneToDecide(decision) };
  if (pending.length > 1) return { ok: false, warning: HUMAN_TEXTS.requests.ambiguous(decision, ids) };
  return { ok: true, request: pending[0] };
}

/** A decision on a request: recorded, kept until its request opens, or turned away with a warning. */
type DecideOutcome =
  | { ok: true; request: HumanRequest & { decision: Decision } }
  | { ok: false; kept: true }
  | { ok: false; kept?: false; warning: string };

/** The number of a request id (`r7` → 7), or undefined for anything else. */
function requestNumber(id: string): number | undefined {
  const m = /^r([1-9]\d{0,8})$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

/**
 * Record a decision on the matching open request; returns the warning when it matches none. The
 * request moves to the end of the book so decided requests are acted on in arrival order. An answer
 * to a gate ({@link GATE_KINDS}) is turned away, and a decision naming a request not opened yet (at
 * most {@link EARLY_DECISION_LIMITS} ahead) is kept until it opens.
 */
export function decide(book: RequestBook, requestId: string | undefined, decision: Decision): DecideOutcome {
  const resolved = resolveDecision(pendingRequests(book), requestId, decision.kind);
  if (!resolved.ok) {
    if (requestId !== undefined && keepEarly(book, requestId, decision)) return { ok: false, kept: true };
    return resolved;
  }
  if (decision.kind === 'answer' && GATE_KINDS.includes(resolved.request.kind)) {
    return { ok: false, warning: HUMAN_TEXTS.requests.answerToGate(resolved.request.id, resolved.request.kind) };
  }
  const index = book.requests.findIndex((r) => r.id === resolved.request.id);
  const [request] = book.requests.splice(index, 1);
  request.decision = decision;
  book.requests.push(request);
  return { ok: true, request: request as HumanRequest & { decision: Decision } };
}

/** Keep a decision for a request not opened yet; false when the id is no such request or the book is full. */
function keepEarly(book: RequestBook, requestId: string, decision: Decision): boolean {
  const n = requestNumber(requestId);
  if (n === undefined || n <= book.requestCounter || n > book.requestCounter + EARLY_DECISION_LIMITS.ahead) return false;
  const early = (book.early ??= []);
  if (early.length >= EARLY_DECISION_LIMITS.kept || early.some((e) => e.requestId === requestId)) return false;
  early.push({ requestId, decision });
  return true;
}

/**
 * Apply the decision kept for `request` (just opened), if one was: as if it had arrived now, so an
 * answer to a gate is turned away here too.
 */
export function decideKept(book: RequestBook, request: HumanRequest): DecideOutcome | undefined {
  const index = book.early?.findIndex((e) => e.requestId === request.id) ?? -1;
  if (index < 0 || !book.early) return undefined;
  const [kept] = book.early.splice(index, 1);
  return decide(book, request.id, kept.decision);
}

/** Decisions kept for requests that never opened (reported when the run ends). */
export function keptDecisions(book: RequestBook): EarlyDecision[] {
  return book.early ?? [];
}

/** The record of a decided request's decision. */
export function decisionRecord(request: HumanRequest & { decision: Decision }): DecisionRecord {
  const { decision } = request;
  return {
    requestId: request.id,
    request: request.kind,
    ...(request.agent !== undefined ? { agent: request.agent } : {}),
    kind: decision.kind,
    ...(decision.by !== undefined ? { by: decision.by } : {}),
    at: new Date(decision.at).toISOString(),
    ...(decision.text !== undefined ? { text: decision.text } : {}),
  };
}

/** Take the decided requests out of the book, in the order their decisions arrived. */
export function takeDecided(book: RequestBook, which: (r: HumanRequest) => boolean = () => true): HumanRequest[] {
  const taken = book.requests.filter((r) => r.decision !== undefined && which(r));
  book.requests = book.requests.filter((r) => !taken.includes(r));
  return taken;
}
