/**
 * What a run shows in the Temporal Web UI besides its events (docs/operating.md, "The Temporal UI"):
 * - the static summary and details, set once when the run starts: the graph's name, its topology and
 *   the task in brief; the Mermaid picture of the graph and its termination rules;
 * - the current details, a small markdown table the workflow keeps up to date: where the run is, what
 *   runs now and since when, iterations against their caps, usage and cost, the goal's turn, the
 *   requests that wait for a human with the commands that answer them, and at the end the status line.
 * Pure; the client sets the static parts at start, the workflow the current details.
 */
import { usdSpentText } from '../budgets/ledger';
import { finalLine } from '../ending/final-line';
import type { RunResult } from '../ending/result';
import { describeGuard } from '../graph/render-labels';
import { renderMermaid } from '../graph/render-mermaid';
import type { CompiledGraph } from '../graph/types';
import { answerCommands } from '../humans/texts';
import { pendingRequests } from '../humans/requests';
import type { RunState } from '../state/state';
import { plural } from '../text/format';
import { shortenUtf8 } from '../text/utf8';
import type { RunningCall } from './progress';
import { summary } from './summaries';

/** Temporal's limit on details and current details (multi-line markdown). */
export const DETAILS_MAX_BYTES = 20 * 1024;

/** Characters of the task kept in the static summary. */
const TASK_BRIEF_CHARS = 80;

/** The run's static summary: `review-loop (topology loop): Write a haiku about…`. */
export function staticSummary(graph: CompiledGraph, task: string): string {
  const oneLine = task.replace(/\s+/g, ' ').trim();
  const brief = oneLine.length > TASK_BRIEF_CHARS ? `${oneLine.slice(0, TASK_BRIEF_CHARS - 1)}…` : oneLine;
  return summary(`${graph.name}${graph.topology ? ` (topology ${graph.topology})` : ''}: ${brief}`);
}

/** The run's static details: the graph's picture and how the run ends. */
export function staticDetails(graph: CompiledGraph): string {
  const t = graph.termination;
  const rules = [
    ...(t.anyOf.length > 0 ? [`any of: ${t.anyOf.map(describeGuard).join('; ')}`] : []),
    ...(t.allOf.length > 0 ? [`all of: ${t.allOf.map(describeGuard).join('; ')}`] : []),
  ];
  const lines = [
    `**${escapeMd(graph.name)}**: ${plural(graph.nodes.length, 'agent')}${graph.topology ? `, topology ${graph.topology}` : ''}`,
    '',
    '```mermaid',
    renderMermaid(graph),
    '```',
    '',
    '**Ends when**',
    '',
    ...(rules.length > 0 ? rules.map((r) => `- ${escapeMd(r)}`) : ['- the graph reaches the orchestrator']),
    ...(graph.maxIterations > 0 ? [`- loops are capped at ${graph.maxIterations} iterations per round`] : []),
    ...(graph.goal ? [`- goal: ${escapeMd(graph.goal.objective)} (at most ${graph.goal.maxTurns} turns)`] : []),
  ];
  return shortenUtf8(lines.join('\n'), DETAILS_MAX_BYTES);
}


/** What the current details are built from. */
export interface CurrentView {
  state: RunState;
  graph: CompiledGraph;
  running: readonly RunningCall[];
  /** Set once the run has ended. */
  result?: RunResult;
}

/** The run's current details: a markdown table of where it is now. */
export function currentDetails(view: CurrentView): string {
  const { state, graph, running, result } = view;
  /** Rows of label and markdown (texts escaped where they are built). */
  const rows: Array<[string, string]> = [];
  const pending = pendingRequests(state);
  const phase = result
    ? result.status
    : pending.length > 0
      ? 'waiting for a human'
      : state.paused || state.goal?.status === 'paused'
        ? 'paused'
        : 'running';
  rows.push(['phase', `${phase} · round ${state.round.round} · wave ${state.round.wave}`]);
  if (!result) {
    rows.push(['running', running.length > 0 ? running.map((r) => `${escapeMd(r.label)} (since ${clockTime(r.since)})`).join('; ') : '—']);
  }
  for (const group of graph.loopGroups) {
    rows.push([`iterations ${group.nodes.join(' ↔ ')}`, `${Math.max(0, state.round.loopCounters[group.id] ?? 0)} of ${graph.maxIterations}`]);
  }
  const u = state.usage;
  const tools = u.toolCalls ? ` · ${plural(u.toolCalls.total, 'tool call')}` : '';
  const cost = u.costUsd > 0 ? ` · ${usdSpentText(u.costUsd)}` : '';
  rows.push(['usage', `${plural(u.agentCalls, 'agent call')}${tools} · ${plural(u.totalTokens, 'token')}${cost}`]);
  if (state.goal) rows.push(['goal', `${state.goal.status} · turn ${state.goal.turnCount} of ${state.goal.maxTurns}`]);
  for (const r of pending) {
    const commands = answerCommands(state.workflowId, r).map((c) => `\`${c.replace(/`/g, "'")}\``);
    rows.push([`request ${r.id}`, `${r.kind}${r.agent ? ` from ${escapeMd(r.agent)}` : ''}: ${escapeMd(r.summary)} — ${commands.join(' or ')}`]);
  }
  if (state.warnings.length > 0) {
    rows.push(['warnings', `${state.warnings.length}, latest: ${escapeMd(state.warnings[state.warnings.length - 1])}`]);
  }
  const table = ['| | |', '|---|---|', ...rows.map(([k, v]) => `| ${cell(escapeMd(k))} | ${cell(v)} |`)];
  const head = result ? `**${escapeMd(finalLine(result))}**` : `**${phase}**`;
  return shortenUtf8([head, '', ...table].join('\n'), DETAILS_MAX_BYTES);
}

/** `HH:MM:SS` UTC of a workflow time. */
function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** A table cell (markdown): one line, no column breaks, bounded. */
function cell(md: string): string {
  // most cells have neither: they are only bounded
  const line = /[\n|]/.test(md) ? md.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|') : md;
  return shortenUtf8(line, 600);
}

/** Characters that would turn a name or text into markup (emphasis, links, HTML, code), escaped. */
function escapeMd(text: string): string {
  return text.replace(/[*_[\]<`]/g, (c) => `\\${c}`);
}
