/**
 * The run's handlers for the messages of its contract (`src/contract.ts`): signals, the decision
 * Updates and queries. A handler only validates its payload and records it in the run state; the
 * main loop acts on it. A malformed signal becomes a warning and never fails the run.
 *
 * Decisions (`approve`, `reject`, `answer`) are Updates, as Temporal's samples answer a
 * request/response (samples-typescript `message-passing`): their validator is the one pure verdict
 * (`checkDecision`), so a decision for no open request, a decided one, the wrong kind or another
 * digest is refused before anything enters the history, and the caller learns why; an accepted one is
 * applied at once and answered with what follows. The signals of the same names stay for older
 * clients and go through the same verdict (a refused one is recorded as refused).
 */
import type { UpdateDefinition } from '@temporalio/common';
import { ApplicationFailure, setHandler, type SignalDefinition } from '@temporalio/workflow';
import { DECISION_REFUSED, DECISION_UPDATES, followUpdate, progressQuery, SIGNALS, statusQuery, transcriptQuery } from '../contract';
import { buildStatusView } from '../core/ending/result';
import { RUN_END_TEXTS } from '../core/ending/texts';
import { reactivatePausedGoal } from '../core/goals';
import { appliedAnswer, takeDecision, type AppliedDecision } from '../core/humans/decisions';
import { progressOf } from '../core/observe/progress';
import { awaitingHumans, checkDecision, type Decision, type DecisionKind, type DecisionRefusal } from '../core/humans/requests';
import { parsePayload, parseSignalPayload, type SignalName } from '../core/humans/signals';
import { HUMAN_TEXTS } from '../core/humans/texts';
import { startClocks, stopClocks } from '../core/state/clock';
import { queueMessage, warn } from '../core/state/state';
import { recordSignal } from '../core/waves/record';
import type { Run } from './execution';
import { publish } from './observe';
import { installProgressRecorder } from './progress-record';

/** Parse, record a warning when malformed, and never throw. */
function handle<K extends SignalName>(run: Run, name: K, raw: unknown, body: (payload: ParsedOf<K>) => void): void {
  run.signalsSeen += 1;
  try {
    const parsed = parseSignalPayload(name, raw);
    if (!parsed.ok) warn(run.state, parsed.warning);
    else body(parsed.value as ParsedOf<K>);
  } catch (err) {
    warn(run.state, RUN_END_TEXTS.malformedSignal(name, err instanceof Error ? err.message : String(err)));
  }
  if (!run.end) publish(run);
}

type ParsedOf<K extends SignalName> = Exclude<ReturnType<typeof parseSignalPayload<K>>, { ok: false }>['value'];

/** A decision's payload, parsed. */
type DecisionPayload = { requestId?: string; by?: string; digest?: string; note?: string; reason?: string; text?: string };

/**
 * The decision a payload carries, arrived now: its note (approve), reason (reject) or answer text,
 * who decided (`by`, absent from older clients) and the digest they named (a gate's decision must).
 */
function decisionOf(kind: DecisionKind, p: DecisionPayload): Decision {
  const text = kind === 'approve' ? p.note : kind === 'reject' ? p.reason : p.text;
  return {
    kind,
    ...(text !== undefined ? { text } : {}),
    at: Date.now(),
    ...(p.by !== undefined ? { by: p.by } : {}),
    ...(p.digest !== undefined ? { digest: p.digest } : {}),
  };
}

/** A decision Update's payload and verdict, or why it is refused: the validator and the handler read it alike. */
function verdictOf(run: Run, kind: DecisionKind, raw: unknown): { ok: true; requestId: string; decision: Decision } | { ok: false; refusal: DecisionRefusal } {
  const parsed = parsePayload(kind, raw);
  if (!parsed.ok) return { ok: false, refusal: { code: 'malformed', reason: HUMAN_TEXTS.reasons.malformed(parsed.issue) } };
  const p = parsed.value as DecisionPayload;
  const decision = decisionOf(kind, p);
  const verdict = checkDecision(run.state, p.requestId, decision);
  return verdict.ok ? { ok: true, requestId: verdict.request.id, decision } : { ok: false, refusal: verdict.refusal };
}

/** The failure a refused decision Update ends with: its reason as the message, the refusal as its detail. */
function refused(refusal: DecisionRefusal): ApplicationFailure {
  return ApplicationFailure.create({ type: DECISION_REFUSED, message: refusal.reason, details: [refusal], nonRetryable: true });
}

/** The validator of a decision Update: throws the refusal, so nothing enters the history. */
function validateDecision(run: Run, kind: DecisionKind, raw: unknown): void {
  const verdict = verdictOf(run, kind, raw);
  if (!verdict.ok) throw refused(verdict.refusal);
}

/**
 * A decision Update, validated: applied where every decision is (`takeDecision`), and answered with
 * what follows. The validator ran just before, in the same activation, so the verdict is the same;
 * on replay validators do not run, and the state is again what it was.
 */
function applyDecisionUpdate(run: Run, kind: DecisionKind, raw: unknown): AppliedDecision {
  run.signalsSeen += 1;
  const verdict = verdictOf(run, kind, raw);
  if (!verdict.ok) throw refused(verdict.refusal);
  const outcome = takeDecision(run.state, verdict.requestId, verdict.decision);
  if (!run.end) publish(run);
  // the verdict said it decides its request, and deciding reaches the same verdict
  if (!outcome.ok) throw refused({ code: 'not_pending', requestId: verdict.requestId, reason: HUMAN_TEXTS.reasons.notPending(verdict.requestId, []) });
  return appliedAnswer(outcome.request);
}

/**
 * Send a `stop`, `pause` or `resume` the parent received on to its team agents' child runs in flight
 * (docs/teams.md, "Nested teams"). A child that ended meanwhile is no error.
 */
function forward(run: Run, name: 'stop' | 'pause' | 'resume', raw: unknown): void {
  const signal = SIGNALS[name] as SignalDefinition<unknown[]>;
  for (const child of run.children) void child.handle?.signal(signal, ...(raw === undefined ? [] : [raw])).catch(() => undefined);
}

/**
 * The handlers of one decision: its Update, validated, and the signal of the same name older clients
 * send, through the same verdict (a refused one is recorded, an ignored one warned of).
 */
function installDecision(run: Run, kind: DecisionKind): void {
  const update = DECISION_UPDATES[kind] as UpdateDefinition<AppliedDecision, [unknown]>;
  setHandler(update, (raw) => applyDecisionUpdate(run, kind, raw), { validator: (raw) => validateDecision(run, kind, raw) });
  const signal = SIGNALS[kind] as SignalDefinition<[unknown?]>;
  setHandler(signal, (raw) => handle(run, kind, raw, (p) => takeDecision(run.state, p.requestId, decisionOf(kind, p))));
}

/** Install every signal, Update and query handler for this run. */
export function installHandlers(run: Run): void {
  const { state } = run;
  setHandler(SIGNALS.pause, (raw) =>
    handle(run, 'pause', raw, () => {
      state.paused = true;
      if (run.inFlight.length === 0) stopClocks(state, Date.now());
      forward(run, 'pause', raw);
    }),
  );
  setHandler(SIGNALS.resume, (raw) =>
    handle(run, 'resume', raw, () => {
      state.paused = false;
      if (state.goal) state.goal = reactivatePausedGoal(state.goal, Date.now());
      if (!awaitingHumans(state) && !run.end) startClocks(state, Date.now());
      forward(run, 'resume', raw);
    }),
  );
  for (const kind of ['approve', 'reject', 'answer'] as const) installDecision(run, kind);
  setHandler(SIGNALS.message, (raw) =>
    handle(run, 'message', raw, (msg) => {
      if (msg.to !== undefined && !run.graph.agents[msg.to]) {
        warn(state, RUN_END_TEXTS.malformedSignal('message', `unknown agent "${msg.to}"`));
        return;
      }
      queueMessage(state, msg.to, { kind: 'user_message', text: msg.text, from: 'user' });
    }),
  );
  setHandler(SIGNALS.signal, (raw) => handle(run, 'signal', raw, (sig) => recordSignal(state, sig.type, sig.payload, Date.now())));
  setHandler(SIGNALS.stop, (raw) =>
    handle(run, 'stop', raw ?? {}, (stop) => {
      state.stop = { reason: stop.reason };
      forward(run, 'stop', raw);
    }),
  );
  setHandler(statusQuery, () => buildStatusView(state, Date.now(), run.inFlight, run.end, run.children));
  setHandler(transcriptQuery, () => state.transcript);
  setHandler(progressQuery, (after) =>
    progressOf({ state, running: run.running, inFlight: run.inFlight, end: run.end, children: run.children }, Date.now(), after),
  );
  const recorder = installProgressRecorder(run);
  setHandler(followUpdate, (after) => recorder.follow(after));
}
