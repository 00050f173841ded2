/**
 * A request to a human, from the moment it opens to what its decision does. Asking a human
 * (docs/semantics.md, "Humans in the loop") is `askHuman`, the one place a run opens a request, for
 * every kind — the `signal` tool's `need_approval`, `need_clarification` and `blocked`, a transfer to
 * `user`, `approval.before_exit`, and a call of a tool `approval.tools` names: what each request says
 * (its summary and payload), what a gate's digest covers and which agent result it holds back are
 * decided there; the request goes into the book (`requests.ts`) and a decision that arrived before it
 * is applied at once.
 *
 * Applying a human's decision, in one place whatever brought it (an `approve`, `reject` or `answer`
 * Update, a signal of an older client, a signal kept until its request opened): decided by the one
 * verdict (`requests.ts`), then remembered. A decision that matched a request — applied, or refused
 * because it did not name what a gate shows — is kept in the run's decision log and as a `decision`
 * entry of the transcript, so the `status` view, `troupe transcript` and the RunResult can say who
 * approved, rejected or answered what, and when, and which decisions were refused and why; an
 * applied one is answered with what follows it; and what a decision does to the result it held
 * back (`actOnDecisions`, which the round machine calls between waves). Pure: time comes with the
 * decision.
 */
import { addNote, MAX_DECISIONS, MAX_TRANSCRIPT, pushBounded, pushThread, warn, type RunState } from '../state/state';
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
  REQUEST_SIGNAL_KINDS,
  takeDecided,
} from './requests';
import { HUMAN_TEXTS } from './texts';
import { USER, type CompiledGraph } from '../graph/types';
import { terminationView } from '../state/view';
import { conditionHolds } from '../conditions/evaluate';
import { mergeWaves, routeIntoState } from '../waves/routing';
import { brief } from '../text/format';

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

/**
 * Act on decided requests whose agent result was held back: `approve`/`answer` route the held result
 * (the note or answer goes to the agent's next input), `reject` re-dispatches that agent alone with
 * the reason while the rest of the next wave waits behind it. The answer to a transfer to `user`
 * (request kind `handoff`) dispatches the agent that handed off again, with the answer.
 */
export function actOnDecisions(state: RunState, graph: CompiledGraph, now: number): void {
  for (const request of takeDecided(state, (r) => r.held !== undefined)) {
    const held = request.held as NonNullable<HumanRequest['held']>;
    const decision = request.decision as NonNullable<HumanRequest['decision']>;
    const agent = request.agent as string;
    // the answer to a transfer to `user` goes back to the agent that handed off, which runs again
    if (request.kind === 'handoff') {
      // in a shared thread the answer follows the question where it was asked; an inbox gets a note
      if (decision.text && graph.context === 'thread') pushThread(state, { agent: USER, text: decision.text, kind: 'answer', to: agent });
      else if (decision.text) addNote(state, agent, { kind: 'human_answer', text: decision.text, from: 'human' });
      state.frontier = mergeWaves(state.frontier, [{ agent, triggers: [] }]);
      continue;
    }
    if (decision.kind === 'reject') {
      addNote(state, agent, { kind: 'reject_reason', text: decision.text ?? '', from: 'human' });
      state.deferred = mergeWaves(state.deferred, state.frontier);
      state.frontier = [{ agent, triggers: held.triggers }];
      continue;
    }
    if (decision.text) {
      addNote(state, agent, {
        kind: decision.kind === 'answer' ? 'human_answer' : 'approval_note',
        text: decision.text,
        from: 'human',
      });
    }
    const view = terminationView(state, now);
    routeIntoState(state, graph, [{ agent, text: held.text }], (when) => conditionHolds(when, view));
  }
}

/** What a run asks a human. */
export type HumanAsk =
  /** An agent's `signal` tool call of a type that asks a human (`need_approval`, …): its result is held back until the decision. */
  | { kind: 'signal'; agent: string; type: string; payload?: unknown; summary?: string; held: Held }
  /** A transfer to `user` (docs/teams.md, "Handoffs"): the agent's result is held back until the answer. */
  | { kind: 'handoff'; agent: string; message?: string; held: Held }
  /** `approval.before_exit`: the final text of the final agents, which the gate shows whole. */
  | { kind: 'before_exit'; agents: string[]; text: string }
  /** A gated tool call: the arguments exactly as the tool will get them (`asText`: the model wrote the call as text). */
  | { kind: 'tool_call'; agent: string; tool: string; arguments: string; asText: boolean };

/** An agent's result held back from routing until a human decides. */
type Held = NonNullable<HumanRequest['held']>;

/** Characters of the final text a `before_exit` request's summary shows (its digest covers the whole text). */
const BEFORE_EXIT_PREVIEW_CHARS = 300;

/** Open the request `ask` makes, at workflow time `now`. */
export function askHuman(state: RunState, ask: HumanAsk, now: number): HumanRequest {
  return openHumanRequest(state, requestOf(ask, now));
}

/** The request an ask opens: what it says and shows, and what it holds back. */
function requestOf(ask: HumanAsk, now: number): RequestToOpen {
  switch (ask.kind) {
    case 'signal':
      return {
        kind: REQUEST_SIGNAL_KINDS[ask.type],
        agent: ask.agent,
        summary: ask.summary ?? summarizePayload(ask.payload) ?? HUMAN_TEXTS.asks.signal(ask.agent, ask.type),
        payload: ask.payload,
        held: ask.held,
        now,
      };
    case 'handoff':
      return {
        kind: 'handoff',
        agent: ask.agent,
        summary: ask.message ?? HUMAN_TEXTS.asks.handoff(ask.agent),
        ...(ask.message ? { payload: { message: ask.message } } : {}),
        held: ask.held,
        now,
      };
    case 'before_exit': {
      const agents = ask.agents.join(',');
      // its digest covers the whole final text, as the RunResult will carry it
      return {
        kind: 'before_exit',
        agent: agents,
        summary: HUMAN_TEXTS.asks.beforeExit(agents, ask.text.slice(0, BEFORE_EXIT_PREVIEW_CHARS)),
        gate: { tool: '', text: ask.text },
        now,
      };
    }
    case 'tool_call': {
      // the digest covers the arguments the tool will get: only a decision naming it decides
      const summaryOf = ask.asText ? HUMAN_TEXTS.asks.toolCallAsText : HUMAN_TEXTS.asks.toolCall;
      return {
        kind: 'tool_call',
        agent: ask.agent,
        summary: summaryOf(ask.agent, ask.tool, brief(ask.arguments)),
        payload: { tool: ask.tool, arguments: ask.arguments, ...(ask.asText ? { writtenAsText: true } : {}) },
        gate: { tool: ask.tool, text: ask.arguments },
        now,
      };
    }
    default: {
      const never: never = ask;
      throw new Error(`askHuman: unknown ask ${JSON.stringify(never)}`);
    }
  }
}

/** A one-line summary from a signal payload's usual fields. */
function summarizePayload(payload: unknown): string | undefined {
  if (payload && typeof payload === 'object') {
    const p = payload as Record<string, unknown>;
    for (const key of ['summary', 'question', 'message', 'reason', 'text']) {
      if (typeof p[key] === 'string' && p[key]) return p[key] as string;
    }
  }
  return undefined;
}
