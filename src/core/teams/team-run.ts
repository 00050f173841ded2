/**
 * A nested team's run, the pure side (docs/teams.md, "Nested teams"): its workflow id, its task,
 * the budgets it starts with (its own, capped by its share of what the parent has left), and what its RunResult
 * means to the parent — the agent's result, or the end of a failed dispatch. The workflow starts the
 * child (`src/workflows/team-call.ts`).
 */
import { ENDS } from '../ending/decide';
import type { RunEnd, RunResult } from '../ending/result';
import type { CompiledBudget, CompiledGraph } from '../graph/types';
import type { AgentCallResult } from '../llm/contract';
import { notesSection, type PromptNote } from '../prompts/build';
import type { Trigger } from '../waves/types';

/**
 * The workflow id of `agent`'s `n`-th team run (from 1) in the run `parentId`, started by its
 * execution `parentRunId` (the run id on the execution's start event, which a reset keeps):
 * `<parent id>/<parent run id>/<agent>-<n>`. The run id is Temporal's, known to nobody before the
 * parent starts, so no other run can hold the id first (docs/teams.md, "Nested teams"); `n` is
 * carried across continue-as-new, where the run id changes too.
 */
export function childWorkflowId(parentId: string, parentRunId: string, agent: string, n: number): string {
  return `${parentId}/${parentRunId}/${agent}-${n}`;
}

/** What troupe tells of a workflow id it will not start a run with. */
export const CHILD_ID_TEXTS = {
  /** A run's own id may not hold `/`, which only team agents' child runs have. */
  slashInRunId: (id: string) =>
    `workflow id "${id.length > 80 ? `${id.slice(0, 80)}…` : id}" holds "/", which troupe keeps for the child runs of team agents (<parent id>/<parent run id>/<agent>-<n>); choose an id without "/"`,
} as const;

/** Why troupe's client and CLI refuse to start a run with `id`, or undefined when they may (docs/teams.md, "Nested teams"). */
export function runIdIssue(id: string): string | undefined {
  return id.includes('/') ? CHILD_ID_TEXTS.slashInRunId(id) : undefined;
}

/**
 * The task a team is given: the outputs that triggered its agent, else (triggered by parent) the
 * parent's task; then the dispatch's notes (a human's answer or message, a check's retry prompt),
 * as the agent's prompt would have them.
 */
export function teamTask(parentTask: string, triggers: readonly Trigger[], notes: readonly PromptNote[] = []): string {
  const outputs = triggers.filter((t) => t.from !== 'parent');
  const input = outputs.length === 0 ? parentTask : outputs.length === 1 ? outputs[0].text : outputs.map((t) => `## ${t.from}\n\n${t.text}`).join('\n\n');
  const noted = notesSection(notes);
  return noted === '' ? input : `${input}\n\n${noted}`;
}

/** The smaller of two optional limits. */
function smaller(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/**
 * The budgets a team starts with: each the smaller of its own and its share of what the parent has
 * left (`core/budgets/shares.ts`: the shares of a wave's teams add up to no more than that).
 */
export function childBudget(own: CompiledBudget, share: CompiledBudget): CompiledBudget {
  const out: CompiledBudget = {
    maxTotalTokens: smaller(own.maxTotalTokens, share.maxTotalTokens),
    maxCostUsd: smaller(own.maxCostUsd, share.maxCostUsd),
    maxAgentCalls: smaller(own.maxAgentCalls, share.maxAgentCalls),
    maxDurationMs: smaller(own.maxDurationMs, share.maxDurationMs),
    maxToolCalls: smaller(own.maxToolCalls, share.maxToolCalls),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as CompiledBudget;
}

/**
 * The graph a team runs: its own, with the budgets {@link childBudget} gives and the parent's prices
 * under its own (so the cost it reports counts the models the parent prices).
 */
export function childGraph(team: CompiledGraph, parent: CompiledGraph, share: CompiledBudget): CompiledGraph {
  return { ...team, budget: childBudget(team.budget, share), pricing: { ...parent.pricing, ...team.pricing } };
}

/** Statuses of a child run whose `finalText` is its agent's result; any other fails the dispatch. */
const TEAM_DONE = new Set(['completed', 'exhausted']);

/** What a team's RunResult is to its parent: the agent's result, or the end of the parent's failed dispatch. */
export function teamOutcome(agent: string, child: RunResult): { ok: true; result: AgentCallResult } | { ok: false; end: RunEnd } {
  if (!TEAM_DONE.has(child.status)) return { ok: false, end: ENDS.teamFailed(agent, child) };
  const usage = child.usage;
  return {
    ok: true,
    result: {
      text: child.finalText,
      toolEvents: [],
      usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, totalTokens: usage.totalTokens },
      llmCalls: usage.llmRequests,
      model: `team ${child.workflowId}`,
      warnings: [],
      team: { workflowId: child.workflowId, usage },
    },
  };
}
