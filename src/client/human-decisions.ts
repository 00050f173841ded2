/**
 * Deciding a run's human requests from code (docs/library.md): `approve`, `reject` and `answer` send
 * the decision as a Temporal Update and return what the run did with it — applied, with what follows,
 * or refused, with why — as `troupe approve` prints it. `waitForRequest` waits until a request is
 * open. A decision names the request as the run showed it (a `pending` entry: its id and, on a gate,
 * the digest of what it shows), so nobody decides a gate they have not seen.
 *
 * A decision can overtake the result that opens its request (a query answered by a workflow task
 * that later failed): the run then refuses it as `not_open_yet` before anything enters its history,
 * and it is asked again here for a short, bounded time, the request being open as soon as that
 * task's retry completes. A run whose worker predates decisions as Updates gets the decision as the
 * signal of the same name, and the answer says so.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DECISION_REFUSED, DECISION_UPDATES, SIGNALS } from '../contract';
import { refusedAnswer, type AppliedDecision, type RefusedDecision } from '../core/humans/decisions';
import type { DecisionKind, DecisionRefusal, PendingRequest, RequestKind } from '../core/humans/requests';
import type { SignalInputs } from '../core/humans/signals';
import { HUMAN_TEXTS } from '../core/humans/texts';
import { followRun } from './follow';
import type { RunHandle } from './runs';

/** A human's decision: who decided (`by`) and their note, reason or answer. */
export type RequestDecision =
  | { kind: 'approve'; note?: string; by?: string }
  | { kind: 'reject'; reason: string; by?: string }
  | { kind: 'answer'; text: string; by?: string };

/** A decision sent as a signal, to a run whose worker has no decision Updates (troupe 0.2): whether it was applied, `status` says. */
export interface SentDecision {
  outcome: 'sent';
  text: string;
}

/**
 * What the run did with a decision: `applied` (the decision as recorded, what follows, a line to
 * print), `refused` (its {@link DecisionRefusal}: a code and why; nothing entered the history), or
 * `sent` as a signal to a run too old to answer.
 */
export type DecisionAnswer = AppliedDecision | RefusedDecision | SentDecision;

/**
 * The request a decision is for: an entry of `pending` (status, progress, {@link waitForRequest}),
 * its id alone, or undefined for the only one open (a gate is refused then: it needs its digest).
 */
export type RequestRef = string | Pick<PendingRequest, 'id' | 'digest'> | undefined;

/** How a decision is sent. */
export interface DecideOptions {
  /** Who decides, as the run records it. */
  by?: string;
  /**
   * The Update's id (default: a random one). Sent again with the same id — after a lost answer, a
   * restart — the decision is applied once and answered again (Temporal keeps an Update's outcome by
   * its id).
   */
  updateId?: string;
  /**
   * How long a decision for a request that is not open yet is asked again, in ms (default
   * {@link NOT_OPEN_YET_RETRY.totalMs}); 0: the first answer is the answer.
   */
  notOpenYetMs?: number;
}

/**
 * How a decision refused as `not_open_yet` is asked again: at first after `firstMs`, then twice as
 * long each time up to `maxMs`, for `totalMs` at most. The request opens when the workflow task that
 * refused it completes, so one retry is usually enough; the bound keeps a decision for a request that
 * never opens from hanging its caller.
 */
export const NOT_OPEN_YET_RETRY = { firstMs: 100, maxMs: 1_000, totalMs: 5_000 } as const;

/** Approve a request (a gate, a held result, a question); `note` goes to the agent's next input. */
export function approve(handle: RunHandle, request: RequestRef, options: DecideOptions & { note?: string } = {}): Promise<DecisionAnswer> {
  const { note, ...rest } = options;
  return decideRequest(handle, request, { kind: 'approve', ...(note !== undefined ? { note } : {}), ...by(rest) }, rest);
}

/** Reject a request with a reason: a gated call does not run, `before_exit` starts a round, a held result's agent runs again. */
export function reject(handle: RunHandle, request: RequestRef, reason: string, options: DecideOptions = {}): Promise<DecisionAnswer> {
  return decideRequest(handle, request, { kind: 'reject', reason, ...by(options) }, options);
}

/** Answer a question an agent asked (`need_clarification`, `blocked`, a transfer to `user`); never decides a gate. */
export function answer(handle: RunHandle, request: RequestRef, text: string, options: DecideOptions = {}): Promise<DecisionAnswer> {
  return decideRequest(handle, request, { kind: 'answer', text, ...by(options) }, options);
}

function by(options: DecideOptions): { by?: string } {
  return options.by !== undefined ? { by: options.by } : {};
}

/**
 * Send `decision` on `request` as the run's Update of that name, with the digest the request showed
 * (a gate's decision must name it), and return what the run did with it; a `not_open_yet` refusal is
 * asked again as {@link NOT_OPEN_YET_RETRY} says. Throws only when the run cannot be reached or
 * found.
 */
export async function decideRequest(handle: RunHandle, request: RequestRef, decision: RequestDecision, options: DecideOptions = {}): Promise<DecisionAnswer> {
  const payload = payloadOf(typeof request === 'string' ? { id: request } : (request ?? {}), decision);
  const deadline = Date.now() + (options.notOpenYetMs ?? NOT_OPEN_YET_RETRY.totalMs);
  for (let wait: number = NOT_OPEN_YET_RETRY.firstMs; ; wait = Math.min(wait * 2, NOT_OPEN_YET_RETRY.maxMs)) {
    const answered = await decideOnce(handle, decision.kind, payload, options.updateId);
    const left = deadline - Date.now();
    if (answered.outcome !== 'refused' || answered.refusal.code !== 'not_open_yet' || left <= 0) return answered;
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
  }
}

/** The payload of a decision on `request`: its id, who decided, what they said, and a gate's digest. */
function payloadOf(request: Partial<Pick<PendingRequest, 'id' | 'digest'>>, decision: RequestDecision): SignalInputs[DecisionKind] {
  const named = { ...(request.id !== undefined ? { requestId: request.id } : {}), ...(decision.by !== undefined ? { by: decision.by } : {}) };
  // answers never carry a digest (an answer decides no gate), and a request without one is no gate
  const digest = request.digest !== undefined ? { digest: request.digest } : {};
  switch (decision.kind) {
    case 'approve':
      return { ...named, ...digest, ...(decision.note !== undefined ? { note: decision.note } : {}) };
    case 'reject':
      return { ...named, ...digest, reason: decision.reason };
    case 'answer':
      return { ...named, text: decision.text };
    default: {
      const never: never = decision;
      throw new Error(`decideRequest: unknown decision ${JSON.stringify(never)}`);
    }
  }
}

/** One Update: its answer, its refusal, or — for a worker without the Update — the signal sent instead. */
async function decideOnce(handle: RunHandle, kind: DecisionKind, payload: SignalInputs[DecisionKind], updateId?: string): Promise<DecisionAnswer> {
  try {
    return await handle.executeUpdate(DECISION_UPDATES[kind] as (typeof DECISION_UPDATES)['approve'], {
      args: [payload as SignalInputs['approve']],
      ...(updateId !== undefined ? { updateId } : {}),
    });
  } catch (err) {
    const refusal = refusalOf(err) ?? (await endedRefusal(handle, err));
    if (refusal) return refusedAnswer(refusal);
    if (!noSuchUpdate(err, kind)) throw err;
    await handle.signal(SIGNALS[kind], payload);
    return { outcome: 'sent', text: HUMAN_TEXTS.answers.sent(kind, (payload as { requestId?: string }).requestId) };
  }
}

/** The refusal a decision Update failed with (its validator's), or undefined for any other failure. */
function refusalOf(err: unknown): DecisionRefusal | undefined {
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure) || err.cause.type !== DECISION_REFUSED) return undefined;
  const detail = err.cause.details?.[0] as Partial<DecisionRefusal> | undefined;
  return { code: detail?.code ?? 'not_pending', ...(detail?.requestId !== undefined ? { requestId: detail.requestId } : {}), reason: detail?.reason ?? err.cause.message };
}

/** The refusal of a decision sent to a run that has ended (the server finds no running workflow to ask), or undefined. */
async function endedRefusal(handle: RunHandle, err: unknown): Promise<DecisionRefusal | undefined> {
  if (!(err instanceof WorkflowNotFoundError)) return undefined;
  const status = await handle.describe().then(
    (d) => d.status.name,
    () => undefined,
  );
  return status === undefined || status === 'RUNNING' ? undefined : { code: 'ended', reason: HUMAN_TEXTS.reasons.ended(status) };
}

/** Whether the run's worker has no handler for this Update (the SDK's own rejection): a troupe 0.2 worker. */
function noSuchUpdate(err: unknown, kind: DecisionKind): boolean {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.message === `No registered handler for update: ${kind}`;
}

/** Which request {@link waitForRequest} waits for: any, or one of this id, kind or agent. */
export interface RequestFilter {
  id?: string;
  kind?: RequestKind;
  agent?: string;
  /** Stop waiting (`waitForRequest` rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * Wait until the run has a pending request (matching `filter`), and return it as the run shows it —
 * what `approve`, `reject` and `answer` take; undefined when the run ends first. It follows the run
 * as `followRun` does: a long-poll of its history, a query when it moved.
 */
export async function waitForRequest(handle: RunHandle, filter: RequestFilter = {}): Promise<PendingRequest | undefined> {
  const found = new AbortController();
  let request: PendingRequest | undefined;
  const matches = (r: PendingRequest) =>
    (filter.id === undefined || r.id === filter.id) && (filter.kind === undefined || r.kind === filter.kind) && (filter.agent === undefined || r.agent === filter.agent);
  const onAbort = () => found.abort(filter.signal?.reason);
  filter.signal?.addEventListener('abort', onAbort, { once: true });
  if (filter.signal?.aborted) onAbort();
  try {
    await followRun(
      handle,
      (e) => {
        if (e.kind !== 'request' || request !== undefined || !matches(e.request)) return;
        request = e.request;
        found.abort();
      },
      { signal: found.signal },
    );
    return undefined;
  } catch (err) {
    if (request !== undefined) return request;
    throw err;
  } finally {
    filter.signal?.removeEventListener('abort', onAbort);
  }
}
