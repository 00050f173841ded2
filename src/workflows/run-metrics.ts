/**
 * The metrics the workflow records (docs/observability.md, "Metrics"): tokens and cost of every
 * model call its ledger counts, by agent, model and kind, and the transfers its agents make. They
 * are recorded here, from the results the ledger records (`core/budgets/ledger.ts`), because the
 * ledger is what budgets and the RunResult count and only the workflow has the role's pricing.
 *
 * Through the workflow's `metricMeter`, which records nothing while the workflow replays: a result
 * is counted by the worker that first ran the task that received it, not again when another worker
 * (or the same one, after an eviction) replays the run. A workflow task that fails after it ran (its
 * worker crashed before it completed) runs again and counts again: the counts are at least once.
 * Recording issues no command, so histories are unchanged. A team agent's child run records its own.
 *
 * Only in a bundle with `metrics-interceptors.ts`, which a worker that exports metrics has: in any
 * other, nothing is recorded and nothing is paid.
 *
 * Nothing here may throw: a workflow task that throws is retried without end, and the run would be
 * wedged (the SDK's meter refuses a negative value by throwing). Every value is held to a count or an
 * amount first (`core/budgets/counts.ts`), and each recording is guarded besides.
 */
import { metricMeter } from '@temporalio/workflow';
import { tokenCount } from '../core/budgets/counts';
import { computeCostUsd } from '../core/budgets/ledger';
import type { TokenCounts } from '../core/conditions/view';
import type { CompiledGraph } from '../core/graph/types';
import type { RunEvent } from '../core/run/types';
import type { RunState } from '../core/state/state';
import { metricLabel, TROUPE_METRICS } from '../core/observe/metric-catalogue';

/** Set by `metrics-interceptors.ts` in the run's own global scope. */
const METRICS_ON = Symbol.for('troupe.workflowMetrics');

/** Record this run's metrics (the bundle's metrics module calls it when the workflow is created). */
export function turnOnWorkflowMetrics(): void {
  (globalThis as Record<symbol, unknown>)[METRICS_ON] = true;
}

/** Whether this run records metrics. */
function metricsOn(): boolean {
  return (globalThis as Record<symbol, unknown>)[METRICS_ON] === true;
}

/** The kinds of the ledger's calls. */
type CallKind = 'agent' | 'judge' | 'compaction' | 'selector';

/** One call the ledger records: who for, on which model, of which kind, and its tokens. */
interface MeteredCall {
  kind: CallKind;
  agent?: string;
  model: string;
  usage: TokenCounts;
}

/**
 * Record what an event brings into the ledger, before the machine records it: a wave's agent results
 * (their tokens and cost, and the first transfer of each, which is the one made), the judge's answers
 * and the selector's.
 */
export function meterEvent(graph: CompiledGraph, state: RunState, event: RunEvent): void {
  if (!metricsOn()) return;
  safely(() => meterEventUnguarded(graph, state, event));
}

function meterEventUnguarded(graph: CompiledGraph, state: RunState, event: RunEvent): void {
  switch (event.kind) {
    case 'dispatched':
      for (const { item, result } of event.outcomes) {
        if (result.team) continue;
        meterCall(graph, { kind: 'agent', agent: item.agent, model: graph.agents[item.agent].model.name, usage: result.usage });
        const transfer = result.toolEvents.find((e) => e.tool === 'handoff');
        if (transfer?.tool === 'handoff') meterHandoff(item.agent, transfer.target);
      }
      return;
    case 'judged':
      for (const answer of event.answers) {
        if ('usage' in answer && state.round.latest[answer.target.agent]) {
          meterCall(graph, { kind: 'judge', agent: answer.target.agent, model: graph.judge.model.name, usage: answer.usage });
        }
      }
      return;
    case 'selected':
      if (event.attempts > 0 && graph.selector) meterCall(graph, { kind: 'selector', model: graph.selector.model.name, usage: event.usage });
      return;
    default:
      return;
  }
}

/** Record one call's tokens (input and output) and its cost at the role's prices. */
export function meterCall(graph: CompiledGraph, call: MeteredCall): void {
  if (!metricsOn()) return;
  safely(() => {
    const { tokens, cost } = TROUPE_METRICS;
    const tags = { agent: metricLabel(call.agent), model: metricLabel(call.model), kind: call.kind };
    const counter = metricMeter.createCounter(tokens.name, tokens.unit, tokens.help);
    const input = tokenCount(call.usage?.promptTokens);
    const output = tokenCount(call.usage?.completionTokens);
    if (input > 0) counter.add(input, { ...tags, type: 'input' });
    if (output > 0) counter.add(output, { ...tags, type: 'output' });
    metricMeter.createHistogram(cost.name, 'float', cost.unit, cost.help).record(computeCostUsd(call.model, call.usage, graph.pricing), tags);
  });
}

function meterHandoff(from: string, to: string): void {
  const { handoffs } = TROUPE_METRICS;
  metricMeter.createCounter(handoffs.name, handoffs.unit, handoffs.help).add(1, { from: metricLabel(from), to: metricLabel(to) });
}

/** Runs a recording; a metric is never worth a failed workflow task. */
function safely(record: () => void): void {
  try {
    record();
  } catch {
    // the value was refused (or the meter failed): the series misses it, the run goes on
  }
}
