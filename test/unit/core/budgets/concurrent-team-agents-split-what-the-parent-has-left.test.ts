/**
 * One budget for a wave's team agents (docs/teams.md, "Nested teams"): each child run starts with a
 * share of what the parent has left, the shares add up to no more than that, whatever the number of
 * teams, and a wave whose teams cannot each get what they need does not start.
 */
import { emptyLedger, takeToolCall, type UsageLedger } from '../../../../src/core/budgets/ledger';
import { SHARE_TEXTS, shareWave, teamNeed, waveParties, type WaveParties } from '../../../../src/core/budgets/shares';
import type { CompiledBudget } from '../../../../src/core/graph/types';
import { situationOf } from '../../../../src/core/ending/decide';
import { createRunState } from '../../../../src/core/state/state';
import { compileYaml } from '../../../helpers/compile';

const used = (over: Partial<UsageLedger> = {}): UsageLedger => ({ ...emptyLedger(), ...over });
const teams = (...needs: number[]): WaveParties => ({ agents: 0, toolAgents: 0, teams: needs.map((agentCalls) => ({ agentCalls })) });
const sum = (shares: CompiledBudget[], key: keyof CompiledBudget) => shares.reduce((s, b) => s + (b[key] ?? 0), 0);

describe('the shares of a wave of team agents', () => {
  it('issue 30: three teams under max_agent_calls 4 and max_total_tokens 50 get 2+1+1 calls and 17+17+16 tokens', () => {
    const split = shareWave({ maxAgentCalls: 4, maxTotalTokens: 50 }, used(), 0, teams(1, 1, 1));
    expect(split).toEqual({
      shares: [
        { maxAgentCalls: 2, maxTotalTokens: 17 },
        { maxAgentCalls: 1, maxTotalTokens: 17 },
        { maxAgentCalls: 1, maxTotalTokens: 16 },
      ],
      reservedToolCalls: 0,
    });
  });

  it('never add up to more than the parent has left, for any number of teams and any spending', () => {
    for (let k = 1; k <= 12; k += 1) {
      for (const [limit, spent] of [[100, 0], [100, 37], [13, 1], [1000, 999 - k]] as const) {
        if (limit - spent < k) continue;
        const parent = { maxAgentCalls: limit, maxTotalTokens: limit * 10, maxCostUsd: limit / 7, maxToolCalls: limit };
        const ledger = used({ agentCalls: spent, totalTokens: spent * 10, costUsd: spent / 7 });
        takeToolCall(ledger, {}, 'x', 't');
        const { shares, short } = shareWave(parent, ledger, 0, teams(...Array.from({ length: k }, () => 1)));
        expect(short).toBeUndefined();
        expect(sum(shares, 'maxAgentCalls')).toBe(limit - spent);
        expect(sum(shares, 'maxTotalTokens')).toBe((limit - spent) * 10);
        expect(sum(shares, 'maxToolCalls')).toBe(limit - 1);
        // each share rounded down to whole picodollars; their sum within the float error of the sum
        expect(sum(shares, 'maxCostUsd')).toBeLessThanOrEqual((limit - spent) / 7 + 1e-12);
        expect(shares.every((s) => (s.maxAgentCalls ?? 0) >= 1 && (s.maxTotalTokens ?? 0) >= 1 && (s.maxCostUsd ?? 0) > 0)).toBe(true);
      }
    }
  });

  it('give each team what its first wave needs first, then the rest evenly, earlier teams taking the odd ones', () => {
    expect(shareWave({ maxAgentCalls: 10 }, used({ agentCalls: 1 }), 0, teams(3, 1, 2)).shares.map((s) => s.maxAgentCalls)).toEqual([4, 2, 3]);
  });

  it("count the wave's other agents' calls first, and share the tool calls with the other agents that have tools, holding the teams' part", () => {
    const split = shareWave({ maxAgentCalls: 6, maxToolCalls: 10 }, used(), 0, { agents: 2, toolAgents: 1, teams: [{ agentCalls: 1 }, { agentCalls: 1 }] });
    expect(split.shares).toEqual([
      { maxAgentCalls: 2, maxToolCalls: 4 },
      { maxAgentCalls: 2, maxToolCalls: 3 },
    ]);
    expect(split.reservedToolCalls).toBe(7);
  });

  it('may give a team no tool call when none is left, but not past the limit', () => {
    const ledger = used();
    takeToolCall(ledger, {}, 'x', 't');
    expect(shareWave({ maxToolCalls: 2 }, ledger, 0, teams(1, 1, 1)).shares.map((s) => s.maxToolCalls)).toEqual([1, 0, 0]);
  });

  it('do not split active time: the children run at the same time', () => {
    expect(shareWave({ maxDurationMs: 60_000 }, used(), 20_000.7, teams(1, 1)).shares).toEqual([{ maxDurationMs: 40_000 }, { maxDurationMs: 40_000 }]);
  });

  it('give nothing to share when the wave has no team', () => {
    expect(shareWave({ maxAgentCalls: 3, maxToolCalls: 3 }, used(), 0, { agents: 3, toolAgents: 3, teams: [] })).toEqual({ shares: [], reservedToolCalls: 0 });
  });
});

describe('a wave whose teams cannot each get what they need', () => {
  it('is short of agent calls when their first waves need more than is left, and the even split still keeps within it', () => {
    const split = shareWave({ maxAgentCalls: 5 }, used({ agentCalls: 1 }), 0, teams(2, 2, 1));
    expect(split.short).toEqual({
      reason: 'max_turns_exceeded',
      status: 'budget_exceeded',
      reasonText: SHARE_TEXTS.agentCalls(5, 4, 3, 5),
      limit: 5,
      used: 1,
    });
    expect(split.short?.reasonText).toBe(
      "agent call budget 5 would be exceeded: the next wave's 3 team agents need 5 agent calls to start their runs but only 4 of 5 remain for them",
    );
    expect(sum(split.shares, 'maxAgentCalls')).toBe(4);
  });

  it('is short of tokens when fewer are left than there are teams', () => {
    const split = shareWave({ maxTotalTokens: 50 }, used({ totalTokens: 48 }), 0, teams(1, 1, 1));
    expect(split.short).toMatchObject({ reason: 'token_budget_exceeded', reasonText: "token budget 50 cannot be shared: the next wave's 3 team agents need a token each but only 2 tokens remain" });
  });
});

describe('the parties of a wave', () => {
  const graph = compileYaml(`
name: fan
agents:
  clerk: { instructions: "File.", tools: [files.write] }
  writer: { instructions: "Write.", tools: [goal] }
  planner: { instructions: "Plan." }
collaboration:
  flow: [parent -> clerk, parent -> writer, parent -> planner, clerk -> parent, writer -> parent, planner -> parent]
`);
  const team = compileYaml(`
name: pair
agents:
  a: { instructions: "A." }
  b: { instructions: "B." }
collaboration:
  flow: [parent -> a, parent -> b, a -> parent, b -> parent]
`);
  const withTeam = { ...graph, agents: { ...graph.agents, research: { ...graph.agents.planner, team: { file: './pair.yaml', graph: team } } } };

  it('count the team agents with the calls of their first wave, the other agents, and those of them with worker tools', () => {
    expect(teamNeed(team)).toEqual({ agentCalls: 2 });
    expect(waveParties(withTeam, ['clerk', 'research', 'writer', 'planner'])).toEqual({ agents: 3, toolAgents: 1, teams: [{ agentCalls: 2 }] });
  });

  it('a wave of teams that cannot start is refused before it starts: the run ends budget_exceeded', () => {
    const g = { ...withTeam, budget: { maxAgentCalls: 3 } };
    const state = createRunState(g, 't', 'wf', 0);
    state.frontier = ['clerk', 'research', 'writer'].map((agent) => ({ agent, triggers: [] }));
    expect(situationOf(state, g, 'before_wave', {}, 0).budget).toMatchObject({ reason: 'max_turns_exceeded', reasonText: SHARE_TEXTS.agentCalls(3, 1, 1, 2) });
    state.frontier = ['clerk', 'research'].map((agent) => ({ agent, triggers: [] }));
    expect(situationOf(state, g, 'before_wave', {}, 0).budget).toBeNull();
  });
});
