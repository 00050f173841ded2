/**
 * Applying a human's decision, in one place whatever brought it (an `approve`, `reject` or `answer`
 * Update, a signal of an older client, a signal kept until its request opened): decided by the one
 * verdict (`requests.ts`), then remembered. A decision that matched a request — applied, or refused
 * because it did not name what a gate shows — is kept in the run's decision log and as a `decision`
 * entry of the transcript, so the `status` view, `troupe transcript` and the RunResult can say who
 * approved, rejected or answered what, and when, and which decisions were refused and why; an
 * applied one is answered with what follows it. Pure: time comes with the decision.
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
  type DecisionRefusal,
  type HumanRequest,
  type RequestToOpen,
} from './requests';
import { HUMAN_TEXTS } from './texts';

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

/**
 * A decision's way into the run, an Update's or a signal's: decided (`requests.ts`), then recorded
 * as {@link recordOutcome} says. The one place a decision is applied.
 */
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

/** The workflow's answer to a decision it applied: the result of the `approve`, `reject` and `answer` Updates. */
export interface AppliedDecision {
  outcome: 'applied';
  /** The decision as the run records it (the `status` view's `decisions` entry). */
  decision: DecisionRecord;
  /** What happens next, in a line (`ops's call of deploy runs`). */
  next: string;
  /** `applied to r1: …`, to print. */
  text: string;
}

/** A decision the run refused before anything entered its history (the Update's validator), with why. */
export interface RefusedDecision {
  outcome: 'refused';
  refusal: DecisionRefusal;
  /** `refused: …`, to print. */
  text: string;
}

/** The answer to a decision `takeDecision` applied to `request`. */
export function appliedAnswer(request: HumanRequest & { decision: Decision }): AppliedDecision {
  const next = whatFollows(request, request.decision);
  return { outcome: 'applied', decision: decisionRecord(request, request.decision), next, text: HUMAN_TEXTS.answers.applied(request.id, next) };
}

/** The answer to a refused decision. */
export function refusedAnswer(refusal: DecisionRefusal): RefusedDecision {
  return { outcome: 'refused', refusal, text: HUMAN_TEXTS.answers.refused(refusal.reason) };
}

/**
 * What a decision applied to `request` makes happen next (docs/semantics.md, "Humans in the loop"):
 * a gated tool call runs or is refused, `before_exit` ends the run or starts a round, a held result
 * goes on or its agent runs again, an agent that handed off to `user` works again.
 */
export function whatFollows(request: Pick<HumanRequest, 'kind' | 'agent' | 'payload'>, decision: Pick<Decision, 'kind' | 'text'>): string {
  const agent = request.agent ?? '';
  const next = HUMAN_TEXTS.next;
  switch (request.kind) {
    case 'tool_call': {
      const tool = String((request.payload as { tool?: unknown } | undefined)?.tool ?? '');
      return decision.kind === 'reject' ? next.toolRefused(agent, tool) : next.toolRuns(agent, tool);
    }
    case 'before_exit':
      return decision.kind === 'reject' ? next.newRound(agent) : next.runEnds;
    case 'handoff':
      return next.handoffBack(agent);
    case 'approval':
    case 'clarification':
    case 'blocked':
      return decision.kind === 'reject' ? next.agentAgain(agent) : next.resultGoesOn(agent, Boolean(decision.text));
    default: {
      const never: never = request.kind;
      return never;
    }
  }
}
