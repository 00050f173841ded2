/**
 * Remembering who decided: a decision that matched a request is kept in the run's decision log and
 * as a `decision` entry of the transcript, so the `status` view, `troupe transcript` and the
 * RunResult can say who approved, rejected or answered what, and when. Pure: time comes with the
 * decision.
 */
import { MAX_DECISIONS, MAX_TRANSCRIPT, pushBounded, warn, type RunState } from '../state/state';
import { decideKept, decisionRecord, openRequest, type Decision, type DecisionRecord, type HumanRequest } from './requests';

/** Characters of a decision's text kept in its transcript entry (the log keeps it whole). */
const TRANSCRIPT_TEXT_CHARS = 500;

/** Record a decided request's decision in the log and the transcript; returns the record. */
export function recordDecision(state: RunState, request: HumanRequest & { decision: Decision }): DecisionRecord {
  const record = decisionRecord(request);
  pushBounded((state.decisionLog ??= []), record, MAX_DECISIONS);
  pushBounded(
    state.transcript,
    {
      step: state.steps,
      agent: request.agent ?? '',
      round: state.round.round,
      wave: state.round.wave,
      hash: '',
      promptTokens: 0,
      completionTokens: 0,
      text: (record.text ?? '').slice(0, TRANSCRIPT_TEXT_CHARS),
      at: request.decision.at,
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
 * Open a request, and apply at once a decision that arrived for it before it opened (kept by
 * `decide`): recorded like any decision, or turned away with its warning.
 */
export function openHumanRequest(state: RunState, req: Parameters<typeof openRequest>[1]): HumanRequest {
  const request = openRequest(state, req);
  const kept = decideKept(state, request);
  if (kept?.ok) recordDecision(state, kept.request);
  else if (kept && !kept.kept) warn(state, kept.warning);
  return request;
}
