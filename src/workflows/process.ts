/**
 * Processing a finished wave, in the order of SPEC §11.2: (1) record results in wave order,
 * (2) judge concurrently, (3) route in wave order, (4) count back edges, (5) evaluate termination
 * and the hard cap, (6) check budgets. Returns how the round goes on.
 */
import { isCancellation } from '@temporalio/workflow';
import { captureResult, normalizeResult } from '../core/waves/capture';
import { hashResult } from '../core/text/hash';
import { addUsage, checkWaveBudget, recordCall } from '../core/budgets/ledger';
import { applyGoalEvents, goalRunStatus, type GoalEvent } from '../core/goals';
import { recapText } from '../core/text/utf8';
import { openRequest, HITL_SIGNAL_TYPES } from '../core/humans/requests';
import { countBackEdges, hardCapReached, routeWave, type WaveItem } from '../core/waves/routing';
import {
  activeMs,
  OWN_RESULTS_KEPT,
  pushBounded,
  MAX_SIGNALS,
  MAX_TRANSCRIPT,
  terminationView,
  TEXT_CAP_BYTES,
  THREAD_KEPT,
  warn,
  type RunState,
} from '../core/state/state';
import type { RunEnd } from '../core/ending/result';
import {
  conditionHolds,
  evaluateTermination,
  judgeTargets,
  stuckWindow,
  updateLatches,
  verdictKey,
} from '../core/termination/evaluate';
import { activitiesFor, type Run } from './context';
import type { AgentOutcome } from './wave';
import { TEXTS } from './texts';

/** Default judge criteria (§5.4). */
export const DEFAULT_CRITERIA = 'the result fully satisfies the task';
/** Judge activity timeout (same policy as agents). */
export const JUDGE_TIMEOUT_MS = 30_000;

/** What the round does after a processed wave. */
export type WaveVerdict = { kind: 'continue' } | { kind: 'round_over'; end: RunEnd };

/** Step (1): record one agent's result into run- and round-scoped state. */
export function recordResult(
  run: Run,
  outcome: AgentOutcome,
  kind: 'agent' | 'schema_retry' = 'agent',
): { text: string; hash: string; goalEvents: GoalEvent[] } {
  const { state, graph } = run;
  const { item, result } = outcome;
  const now = Date.now();
  const captured = recapText(captureResult(result.text), TEXT_CAP_BYTES);
  const normalized = normalizeResult(captured);
  const hash = hashResult(normalized);
  const round = state.round;

  state.steps += 1;
  const previous = state.results[item.agent];
  state.results[item.agent] = { text: captured, hash, count: (previous?.count ?? 0) + 1 };
  round.latest[item.agent] = { text: normalized, hash };
  const window = stuckWindow(graph.termination, graph.edges) + 1;
  const hashes = (round.hashes[item.agent] ??= []);
  pushBounded(hashes, hash, window);
  if (kind === 'agent') round.messages += 1;
  round.usage = addUsage(round.usage, result.usage);
  recordCall(state.usage, {
    kind: 'agent',
    agent: item.agent,
    model: graph.agents[item.agent].model.name,
    usage: result.usage,
    round: round.round,
    pricing: graph.pricing,
    llmCalls: result.llmCalls,
  });
  round.latches = updateLatches(graph.termination, item.agent, normalized, round.latches, graph.edges);

  const memory = (state.memory[item.agent] ??= { own: [] });
  pushBounded(memory.own, captured, OWN_RESULTS_KEPT);
  state.threadSeq += 1;
  pushBounded(state.thread, { agent: item.agent, text: captured, seq: state.threadSeq }, THREAD_KEPT);
  pushBounded(
    state.transcript,
    {
      step: state.steps,
      agent: item.agent,
      round: round.round,
      wave: round.wave,
      hash,
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      text: captured.slice(0, 500),
      at: now,
      kind,
    },
    MAX_TRANSCRIPT,
  );
  for (const w of result.warnings) warn(state, w);

  const goalEvents: GoalEvent[] = [];
  for (const event of result.toolEvents) {
    if (event.tool === 'signal') {
      const at = new Date(now).toISOString();
      pushBounded(state.signals, { type: event.type, payload: event.payload, at, source: item.agent }, MAX_SIGNALS);
      if (!round.signals.includes(event.type)) round.signals.push(event.type);
      if ((HITL_SIGNAL_TYPES as readonly string[]).includes(event.type)) {
        const request = openRequest(state, {
          kind: event.type as (typeof HITL_SIGNAL_TYPES)[number],
          agent: item.agent,
          summary: event.summary ?? summarizePayload(event.payload) ?? TEXTS.requestSummary(item.agent, event.type),
          payload: event.payload,
          now,
        });
        state.held.push({ agent: item.agent, text: captured, requestId: request.id, triggers: item.triggers });
      }
    } else {
      goalEvents.push(event);
    }
  }
  return { text: captured, hash, goalEvents };
}

function summarizePayload(payload: unknown): string | undefined {
  if (payload && typeof payload === 'object') {
    const p = payload as Record<string, unknown>;
    for (const key of ['summary', 'question', 'message', 'reason', 'text']) {
      if (typeof p[key] === 'string' && p[key]) return p[key] as string;
    }
  }
  return undefined;
}

/** Step (2): judge, concurrently, the results of agents named by a `converged` condition or guard. */
export async function judgeWave(run: Run, agents: string[]): Promise<void> {
  const { state, graph } = run;
  const targets = judgeTargets(graph.termination, graph.edges).filter((t) => agents.includes(t.agent));
  if (targets.length === 0) return;
  await Promise.all(
    targets.map(async (target) => {
      const latest = state.round.latest[target.agent];
      if (!latest) return;
      const key = verdictKey(target.agent, target.criteria);
      try {
        const verdict = await activitiesFor(JUDGE_TIMEOUT_MS).judgeConvergence({
          workflowId: state.workflowId,
          agent: target.agent,
          model: graph.judge.model,
          criteria: target.criteria ?? DEFAULT_CRITERIA,
          task: state.task,
          result: state.results[target.agent]?.text ?? latest.text,
          timeoutMs: JUDGE_TIMEOUT_MS,
        });
        state.round.verdicts[key] = { hash: latest.hash, converged: verdict.converged, reason: verdict.reason };
        state.round.usage = addUsage(state.round.usage, verdict.usage);
        recordCall(state.usage, {
          kind: 'judge',
          agent: target.agent,
          model: graph.judge.model.name,
          usage: verdict.usage,
          round: state.round.round,
          pricing: graph.pricing,
        });
      } catch (err) {
        if (isCancellation(err) && run.root.consideredCancelled) throw err;
        state.round.verdicts[key] = { hash: latest.hash, converged: false };
        warn(state, TEXTS.judgeFailed(target.agent, err));
      }
    }),
  );
}

/**
 * The end a budget imposes now, if any (§8). With `waveSize` (the pre-wave check), a wave that would
 * take the agent calls past `max_agent_calls` is refused too.
 */
export function budgetEnd(state: RunState, run: Run, waveSize = 0): RunEnd | undefined {
  const stop = checkWaveBudget(run.graph.budget, state.usage, activeMs(state, Date.now()), waveSize);
  return stop ? { status: 'budget_exceeded', reason: stop.reason, reasonText: stop.reasonText } : undefined;
}

/**
 * Apply the wave's `goal` tool events in wave order (§11.8); a goal set completed/blocked ends the
 * round after this wave, `paused` pauses the run until `resume`.
 */
function applyWaveGoalEvents(state: RunState, events: Array<{ agent: string; event: GoalEvent }>): RunEnd | undefined {
  if (!state.goal || events.length === 0) return undefined;
  const applied = applyGoalEvents(state.goal, events, Date.now());
  state.goal = applied.goal;
  for (const w of applied.warnings) warn(state, w);
  if (applied.effect !== 'end_round') return undefined;
  return goalRunStatus(applied.goal);
}

/**
 * Process a finished wave: record, judge, route, count, then decide. `outcomes` are in wave order.
 * On `continue`, `state.frontier` holds the next wave. A `stop` received meanwhile skips the judge
 * (no new LLM call) and ends `cancelled/user_stop` whatever else holds (§11.6).
 */
export async function processWave(run: Run, outcomes: AgentOutcome[]): Promise<WaveVerdict> {
  const { state, graph } = run;
  const recorded = outcomes.map((o) => ({ agent: o.item.agent, ...recordResult(run, o) }));
  const goal = applyWaveGoalEvents(
    state,
    recorded.flatMap((r) => r.goalEvents.map((event) => ({ agent: r.agent, event }))),
  );
  if (!state.stop) await judgeWave(run, recorded.map((r) => r.agent));

  const heldAgents = new Set(state.held.map((h) => h.agent));
  const view = terminationView(state, Date.now());
  const routing = routeWave(
    graph,
    recorded.filter((r) => !heldAgents.has(r.agent)),
    (when) => conditionHolds(when, view),
  );
  state.round.loopCounters = countBackEdges(graph, state.round.loopCounters, routing.backEdges);
  state.round.exits.push(...routing.exits);
  for (const agent of routing.deadEnds) warn(state, TEXTS.deadEnd(agent, state.round.round));
  state.frontier = mergeWaves(state.frontier, routing.next);

  if (state.stop) return { kind: 'round_over', end: userStop(run) };
  const candidates: Array<RunEnd & { priority: number }> = [];
  if (goal) candidates.push({ ...goal, priority: goal.reason === 'goal_completed' ? 0 : 1 });
  const stop = evaluateTermination(graph.termination, terminationView(state, Date.now()));
  if (stop) candidates.push({ status: stop.status, reason: stop.reason, reasonText: stop.reasonText, priority: stop.priority });
  const cap = hardCapReached(graph, state.round.loopCounters);
  if (cap) {
    candidates.push({
      status: 'exhausted',
      reason: 'max_iterations',
      reasonText: TEXTS.hardCap(cap.group, graph.maxIterations),
      priority: 3,
    });
  }
  if (state.frontier.length === 0 && state.held.length === 0) {
    const end = graphEnd(state);
    candidates.push({ ...end, priority: end.reason === 'exit' ? 1 : 3 });
  }
  if (candidates.length > 0) {
    const best = candidates.reduce((a, b) => (b.priority < a.priority ? b : a));
    const { priority: _p, ...end } = best;
    return { kind: 'round_over', end };
  }
  const budget = budgetEnd(state, run);
  if (budget) return { kind: 'round_over', end: budget };
  return { kind: 'continue' };
}

/** The end `stop` imposes (§7, §11.6): graceful, after in-flight work. */
export function userStop(run: Run): RunEnd {
  return { status: 'cancelled', reason: 'user_stop', reasonText: TEXTS.userStop(run.state.stop?.reason) };
}

/**
 * How a round's graph ends once its next wave is empty (§4.5, §11.3): `exit` when an agent took an
 * exit edge, else `exhausted/dead_end`.
 */
export function graphEnd(state: RunState): RunEnd {
  return state.round.exits.length > 0
    ? { status: 'completed', reason: 'exit', reasonText: TEXTS.exit(state.round.exits) }
    : { status: 'exhausted', reason: 'dead_end', reasonText: TEXTS.deadEndRound() };
}

/** Merge routed items into a frontier: one dispatch per agent with all triggers (joins). */
export function mergeWaves(frontier: WaveItem[], next: WaveItem[]): WaveItem[] {
  const merged = frontier.map((w) => ({ agent: w.agent, triggers: [...w.triggers] }));
  for (const item of next) {
    const existing = merged.find((w) => w.agent === item.agent);
    if (existing) existing.triggers.push(...item.triggers);
    else merged.push({ agent: item.agent, triggers: [...item.triggers] });
  }
  return merged;
}

/** Record a run-level signal received by the workflow (`signal` signal, §7). */
export function recordSignal(state: RunState, type: string, payload: unknown, now: number): void {
  pushBounded(state.signals, { type, payload, at: new Date(now).toISOString() }, MAX_SIGNALS);
  if (!state.round.signals.includes(type)) state.round.signals.push(type);
}
