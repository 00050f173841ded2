/**
 * A nested team's run, the pure side (docs/teams.md, "Nested teams"): its workflow id, its task, the
 * budgets it starts with (the smaller of its own and its share of what the parent has left), and what its
 * RunResult is to the parent.
 */
import { emptyLedger, recordCall, recordTeamRun, takeToolCall } from '../../../../src/core/budgets/ledger';
import type { RunResult } from '../../../../src/core/ending/result';
import { shareWave } from '../../../../src/core/budgets/shares';
import type { CompiledBudget } from '../../../../src/core/graph/types';
import { childBudget, childWorkflowId, runIdIssue, teamOutcome, teamTask } from '../../../../src/core/teams/team-run';

const spent = () => {
  const ledger = emptyLedger();
  recordCall(ledger, { kind: 'agent', agent: 'intro', model: 'm', usage: { promptTokens: 300, completionTokens: 100, totalTokens: 400 }, round: 1, pricing: { m: { input: 1_000_000, output: 1_000_000 } } });
  takeToolCall(ledger, {}, 'intro', 'files.read');
  return ledger;
};

/** A team agent alone in its wave: its share is all the parent has left (`core/budgets/shares.ts`). */
const alone = (parent: CompiledBudget, activeMs = 0) => shareWave(parent, spent(), activeMs, { agents: 0, toolAgents: 0, teams: [{ agentCalls: 1 }] }).shares[0];

describe('childBudget', () => {
  it("caps each of the team's budgets by what the parent has left", () => {
    const parent = { maxTotalTokens: 1000, maxCostUsd: 500, maxAgentCalls: 5, maxDurationMs: 60_000, maxToolCalls: 3 };
    expect(childBudget({}, alone(parent, 20_000))).toEqual({ maxTotalTokens: 600, maxCostUsd: 100, maxAgentCalls: 4, maxDurationMs: 40_000, maxToolCalls: 2 });
  });

  it("keeps the team's own limit when it is the smaller, and sets none the parent has not", () => {
    expect(childBudget({ maxTotalTokens: 100, maxAgentCalls: 9 }, alone({ maxAgentCalls: 5 }))).toEqual({ maxTotalTokens: 100, maxAgentCalls: 4 });
    expect(childBudget({}, alone({}))).toEqual({});
  });

  it('gives no tool call when the parent has none left: never one past its limit', () => {
    expect(childBudget({ maxToolCalls: 5 }, alone({ maxToolCalls: 1 }))).toEqual({ maxToolCalls: 0 });
  });
});

describe('a team run', () => {
  it('has the id <parent id>/<parent run id>/<agent>-<n>: the run id, known to nobody before the parent starts, makes it one no other run can hold', () => {
    expect(childWorkflowId('report-1', '0197a2f4-5c1e-7d3b-9a8e-1f2e3d4c5b6a', 'research', 2)).toBe('report-1/0197a2f4-5c1e-7d3b-9a8e-1f2e3d4c5b6a/research-2');
  });

  it('may not be started by hand through troupe: a run id with "/" is refused, saying why', () => {
    expect(runIdIssue('victim/ta-1')).toBe(
      'workflow id "victim/ta-1" holds "/", which troupe keeps for the child runs of team agents (<parent id>/<parent run id>/<agent>-<n>); choose an id without "/"',
    );
    expect(runIdIssue('report-20261130-ab12c')).toBeUndefined();
  });

  it("is given the triggering outputs as its task, else the parent's task", () => {
    expect(teamTask('Is tea good?', [])).toBe('Is tea good?');
    expect(teamTask('Is tea good?', [{ from: 'parent', text: 'Is tea good?' }])).toBe('Is tea good?');
    expect(teamTask('t', [{ from: 'planner', text: 'the plan' }])).toBe('the plan');
    expect(teamTask('t', [{ from: 'a', text: 'A' }, { from: 'b', text: 'B' }])).toBe('## a\n\nA\n\n## b\n\nB');
  });

  it("carries the dispatch's notes after its input, as the agent's prompt would", () => {
    const task = teamTask('t', [{ from: 'planner', text: 'the plan' }], [{ kind: 'user_message', text: 'cite sources', from: 'user' }]);
    expect(task.startsWith('the plan\n\n## Notes for this turn\n\n')).toBe(true);
    expect(task).toContain('cite sources');
  });

  const result = (status: RunResult['status'], reason = 'exit'): RunResult =>
    ({ workflowId: 'p/research-1', status, reason, reasonText: `${reason}: …`, finalText: 'the summary', usage: { ...spent(), agentCalls: 2, llmRequests: 3 } }) as RunResult;

  it("is the agent's result when it completed or was exhausted", () => {
    for (const status of ['completed', 'exhausted'] as const) {
      const outcome = teamOutcome('research', result(status));
      expect(outcome).toMatchObject({ ok: true, result: { text: 'the summary', llmCalls: 3, team: { workflowId: 'p/research-1' } } });
    }
  });

  it("fails the parent's dispatch otherwise, naming the agent, the child's end and its id", () => {
    expect(teamOutcome('research', result('budget_exceeded', 'max_turns_exceeded'))).toEqual({
      ok: false,
      end: { status: 'failed', reason: 'team_failed', reasonText: 'team_failed: team agent research ended budget_exceeded (max_turns_exceeded: …) in its child run p/research-1' },
    });
  });

  it("counts its tokens, cost, agent calls, requests and tool calls in the parent's usage", () => {
    const parent = emptyLedger();
    const child = spent();
    recordTeamRun(parent, { agent: 'research', round: 1, usage: child });
    expect(parent).toMatchObject({ totalTokens: 400, costUsd: 400, agentCalls: 1, llmRequests: 1, toolCalls: { total: 1, byAgent: { research: 1 }, byTool: { 'files.read': 1 } } });
    expect(parent.byAgent.research).toEqual({ promptTokens: 300, completionTokens: 100, totalTokens: 400, costUsd: 400, calls: 1 });
    expect(parent.byRound).toEqual([{ round: 1, promptTokens: 300, completionTokens: 100, totalTokens: 400, costUsd: 400 }]);
  });
});
