/**
 * Remembering who decided: a decision that matched a request — applied, or refused because it did
 * not name what a gate shows — is kept in the run's decision log and as a `decision` entry of the
 * transcript, so the `status` view, `troupe transcript` and the RunResult can say who approved,
 * rejected or answered what, and when, and which decisions were refused and why. Pure: time comes
 * with the decision.
 */
import { MAX_DECISIONS, MAX_TRANSCRIPT, pushBounded, warn, type RunState } from '../state/state';
import {
  decide,
  decideKept,
  decisionRecord,
  openRequest,
  type Decision,
  type DecideOutcome,
  type DecisionRecord,
  type HumanRequest,
  type RequestToOpen,
} from './requests';

/** Characters of a decision's text kept in its transcript entry (the log keeps it whole). */
const TRANSCRIPT_TEXT_CHARS = 500;

/** Record a decided request's decision in the log and the transcript; returns the record. */
export function recordDecision(state: RunState, request: HumanRequest & { decision: Decision }): DecisionRecord {
  return keepRecord(state, decisionRecord(request, request.decision), request.agent, request.decision.at);
}

/** Put a decision record in the log and, as a `decision` step, in the transcript. */
function keepRecord(state: RunState, record: DecisionRecord, agent: string | undefined, at: number): DecisionRecord {
  pushBounded((state.decisionLog ??= []), record, MAX_DECISIONS);
  pushBounded(
    state.transcript,
    {
      step: state.steps,
      agent: agent ?? '',
      round: state.round.round,
      wave: state.round.wave,
      hash: '',
      promptTokens: 0,
      completionTokens: 0,
      text: (record.text ?? '').slice(0, TRANSCRIPT_TEXT_CHARS),
      at,
      kind: 'decision',
      decision: record,
    },
    MAX_TRANSCRIPT,
  );
  return record;
}

/** The run's decisions, oldest first (none for state written before decisions were kept). */
export function decisionsOf(state: RunState): DecisionRecord[] {
  return state.decisionLog ?? [];
}

/**
 * Carry out what `decide` said of a decision: an applied one is recorded; a refused one is recorded
 * as refused, with its reason, and warned of; an ignored one is warned of; a kept one waits for its
 * request.
 */
export function recordOutcome(state: RunState, outcome: DecideOutcome, decision: Decision): void {
  if (outcome.ok) {
    recordDecision(state, outcome.request);
    return;
  }
  if (outcome.kept) return;
  if (outcome.refused) keepRecord(state, decisionRecord(outcome.refused.request, decision, outcome.refused.reason), outcome.refused.request.agent, decision.at);
  warn(state, outcome.warning);
}

/** A decision signal's way into the run: decided (`requests.ts`), then recorded as {@link recordOutcome} says. */
export function takeDecision(state: RunState, requestId: string | undefined, decision: Decision): DecideOutcome {
  const outcome = decide(state, requestId, decision);
  recordOutcome(state, outcome, decision);
  return outcome;
}

/**
 * Open a request, and apply at once a decision that arrived for it before it opened (kept by
 * `decide`): recorded like any decision, refused when it does not name what a gate opened with, or
 * turned away with its warning.
 */
export function openHumanRequest(state: RunState, req: RequestToOpen): HumanRequest {
  const request = openRequest(state, req);
  const kept = decideKept(state, request);
  if (kept) recordOutcome(state, kept.outcome, kept.decision);
  return request;
}
