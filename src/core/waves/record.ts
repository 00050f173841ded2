/**
 * Recording an agent's result into the run state: the first thing done with a finished wave, in
 * wave order. The result is captured (the ```result block), cut to 64 KiB, normalized and hashed;
 * run- and round-scoped state, usage, the transcript and the termination latches are updated; the
 * `signal` tool's events go to the signal ledger and open human requests (the agent's result is then
 * held back from routing); the `goal` tool's events are returned for the caller to apply. Pure.
 */
import { USER, type CompiledGraph } from '../graph/types';
import { addUsage, recordCall, recordTeamRun } from '../budgets/ledger';
import type { GoalEvent } from '../goals';
import { askHuman } from '../humans/decisions';
import { REQUEST_SIGNAL_KINDS } from '../humans/requests';
import type { AgentCallResult } from '../llm/contract';
import { endsAtUserHandoff, hashWindow, updateLatches } from '../conditions/walk';
import { recapText } from '../text/utf8';
import { hashResult } from '../text/hash';
import { HANDOFF_TEXTS } from '../teams/handoffs';
import {
  addNote,
  MAX_TRANSCRIPT,
  OWN_RESULTS_KEPT,
  pushBounded,
  pushThread,
  recordInLedger,
  TEXT_CAP_BYTES,
  warn,
  type RunState,
  type TranscriptStep,
} from '../state/state';
import { captureResult, lineText, normalizeResult } from './capture';
import type { WaveItem } from './routing';

/** One agent's finished dispatch in a wave. */
interface AgentOutcome {
  item: WaveItem;
  result: AgentCallResult;
}

/** What recording a result yields for the rest of the wave's processing. */
export interface RecordedResult {
  agent: string;
  /** The captured text as stored (cut to 64 KiB). */
  text: string;
  hash: string;
  goalEvents: GoalEvent[];
  /** The agent's transfer, when it made one: routing follows it (docs/teams.md, "Handoffs"). */
  handoff?: { to: string; message?: string };
}

/** Record one agent's result at workflow time `now`; `kind` says why the agent ran. */
export function recordResult(
  state: RunState,
  graph: CompiledGraph,
  outcome: AgentOutcome,
  now: number,
  kind: NonNullable<TranscriptStep['kind']> = 'agent',
  options: { keepLines?: boolean } = {},
): RecordedResult {
  const { item, result } = outcome;
  const { captured, normalized, hash } = capturedResult(result.text, result.resultHash);
  const round = state.round;

  state.steps += 1;
  const previous = state.results[item.agent];
  state.results[item.agent] = { text: captured, hash, count: (previous?.count ?? 0) + 1 };
  round.latest[item.agent] = options.keepLines ? { text: normalized, hash, lines: lineText(captured) } : { text: normalized, hash };
  pushBounded((round.hashes[item.agent] ??= []), hash, hashWindow(graph.termination, graph.edges) + 1);
  if (kind === 'agent') round.messages += 1;
  round.usage = addUsage(round.usage, result.usage);
  if (result.team) recordTeamRun(state.usage, { agent: item.agent, round: round.round, usage: result.team.usage });
  else {
    recordCall(state.usage, {
      kind: 'agent',
      agent: item.agent,
      model: graph.agents[item.agent].model.name,
      usage: result.usage,
      round: round.round,
      pricing: graph.pricing,
      llmCalls: result.llmCalls,
    });
  }
  round.latches = updateLatches(graph.termination, item.agent, normalized, round.latches, graph.edges);

  const memory = (state.memory[item.agent] ??= { own: [] });
  pushBounded(memory.own, captured, OWN_RESULTS_KEPT);
  pushBounded(
    state.transcript,
    transcriptStep({ step: state.steps, agent: item.agent, round: round.round, wave: round.wave, at: now, kind }, result, { captured, hash }),
    MAX_TRANSCRIPT,
  );
  if (result.team) state.transcript[state.transcript.length - 1].team = result.team.workflowId;
  if (item.via?.kind === 'selected') {
    const { attempts, fallback } = item.via;
    state.transcript[state.transcript.length - 1].selected = { attempts, ...(fallback ? { fallback } : {}) };
  }
  for (const w of result.warnings) warn(state, w);
  noteToolsCalled(state, result);

  const goalEvents: GoalEvent[] = [];
  let handoff: RecordedResult['handoff'];
  let refused: string[] | undefined;
  for (const event of result.toolEvents) {
    if (event.tool === 'goal') {
      goalEvents.push(event);
      continue;
    }
    if (event.tool === 'handoff') {
      // one transfer per turn: the activity returns only the first
      if (!handoff) {
        handoff = { to: event.target, ...(event.message ? { message: event.message } : {}) };
        refused = event.refused;
      }
      continue;
    }
    recordInLedger(state, { type: event.type, payload: event.payload, at: new Date(now).toISOString(), source: item.agent });
    if (REQUEST_SIGNAL_KINDS[event.type]) {
      const { type, payload, summary } = event;
      askHuman(state, { kind: 'signal', agent: item.agent, type, payload, ...(summary !== undefined ? { summary } : {}), held: { text: captured, triggers: item.triggers } }, now);
    }
  }
  recordInThread(state, item.agent, captured, handoff);
  if (handoff) recordHandoff(state, graph, item, handoff, refused, captured, now);
  return { agent: item.agent, text: captured, hash, goalEvents, ...(handoff ? { handoff } : {}) };
}

/**
 * The step in the shared thread, where it happened: the agent's output, then its transfer with the
 * transfer's message (a question, when the transfer is to `user`). A transfer without a message
 * carries the output as its text, and a transfer with no text at all is still shown: the agent that
 * takes over sees who handed it the work.
 */
function recordInThread(state: RunState, agent: string, captured: string, handoff: RecordedResult['handoff']): void {
  if (!handoff) {
    pushThread(state, { agent, text: captured });
    return;
  }
  if (handoff.message !== undefined && captured !== '') pushThread(state, { agent, text: captured });
  const text = handoff.message ?? captured;
  pushThread(state, handoff.to === USER ? { agent, text, kind: 'question', to: USER } : { agent, text, kind: 'handoff', to: handoff.to });
}

/**
 * A transfer: counted, in the round's handoffs and on the agent's transcript step. A transfer to
 * `user` asks a human (a request of kind `handoff`, the result held back until the answer), unless a
 * `handoff: user` condition ends the run on it instead.
 */
function recordHandoff(
  state: RunState,
  graph: CompiledGraph,
  item: WaveItem,
  handoff: NonNullable<RecordedResult['handoff']>,
  refused: string[] | undefined,
  captured: string,
  now: number,
): void {
  (state.round.handoffs ??= []).push({ from: item.agent, to: handoff.to });
  state.usage.handoffs = (state.usage.handoffs ?? 0) + 1;
  const step = state.transcript[state.transcript.length - 1];
  if (step?.agent === item.agent) step.handoff = handoff;
  if (refused?.length) {
    warn(state, HANDOFF_TEXTS.refusedWarning(item.agent, handoff.to, refused));
    addNote(state, item.agent, { kind: 'transfer_refused', text: HANDOFF_TEXTS.refusedNote(handoff.to, refused) });
  }
  if (handoff.to !== USER) {
    // the shared thread shows the message where it was sent; an agent that sees only its inbox gets it as a note
    if (handoff.message && graph.context !== 'thread') addNote(state, handoff.to, { kind: 'handoff', text: handoff.message, from: item.agent });
    return;
  }
  if (endsAtUserHandoff(graph.termination)) return;
  askHuman(state, { kind: 'handoff', agent: item.agent, ...(handoff.message ? { message: handoff.message } : {}), held: { text: captured, triggers: item.triggers } }, now);
}

/** The tools that ran in this result, each once in the round (worker tools by their name in `tools:`, and `goal`/`signal`). */
function noteToolsCalled(state: RunState, result: AgentCallResult): void {
  const names = [
    ...(result.toolCalls ?? []).filter((c) => c.ran !== false).map((c) => c.tool),
    ...result.toolEvents.flatMap((e) => (e.tool === 'handoff' ? [] : [e.tool])),
  ];
  if (names.length === 0) return;
  const called = (state.round.toolsCalled ??= []);
  for (const name of names) if (!called.includes(name) && called.length < MAX_TOOLS_NOTED) called.push(name);
}

/** Most distinct tool names a round notes for `tool_called` (a role names at most this many tools). */
const MAX_TOOLS_NOTED = 1000;

/** An agent's result text as recorded: captured (the ```result block), cut to 64 KiB, and normalized. */
export function recordedForm(text: string): { captured: string; normalized: string } {
  const captured = recapText(captureResult(text), TEXT_CAP_BYTES);
  return { captured, normalized: normalizeResult(captured) };
}

/**
 * {@link recordedForm} and its hash. `sentHash` is the agent activity's `resultHash`, the same hash
 * computed with the worker's native SHA-256: hashing in the workflow sandbox is pure JS and cost
 * ~30 µs of a ~1 KB result (BENCHMARKS.md, B5). Results recorded without one (tool loops, earlier
 * versions) are hashed here; both give the same value, so replay sees no difference.
 * @internal exported for tests
 */
export function capturedResult(text: string, sentHash?: string): { captured: string; normalized: string; hash: string } {
  const form = recordedForm(text);
  return { ...form, hash: sentHash ?? hashResult(form.normalized) };
}

/** Characters of a result's text a transcript step keeps. */
const STEP_TEXT_CHARS = 500;

/** The transcript entry of a recorded result. */
function transcriptStep(
  where: Pick<TranscriptStep, 'step' | 'agent' | 'round' | 'wave' | 'at'> & { kind: NonNullable<TranscriptStep['kind']> },
  result: Pick<AgentCallResult, 'usage' | 'toolCalls'>,
  recorded: { captured: string; hash: string },
): TranscriptStep {
  return {
    step: where.step,
    agent: where.agent,
    round: where.round,
    wave: where.wave,
    hash: recorded.hash,
    promptTokens: result.usage.promptTokens,
    completionTokens: result.usage.completionTokens,
    text: recorded.captured.slice(0, STEP_TEXT_CHARS),
    at: where.at,
    kind: where.kind,
    ...(result.toolCalls?.length ? { tools: result.toolCalls } : {}),
  };
}

/** Record a signal received by the workflow (the `signal` signal) in the ledger and the round. */
export function recordSignal(state: RunState, type: string, payload: unknown, now: number): void {
  recordInLedger(state, { type, payload, at: new Date(now).toISOString() });
}
