/**
 * One budget for a wave's team agents (docs/teams.md, "Nested teams"; docs/semantics.md, "Budgets
 * and failures"): each team agent's child run starts with a share of what the parent has left, and
 * the shares add up to no more than that, so any number of children running at once never take the
 * parent past its limits. What is left is split, deterministically, in wave order:
 *
 * - agent calls: the wave's other agents take one each; each team gets what its first wave needs,
 *   then the rest evenly (earlier teams get the odd ones);
 * - tokens and money: evenly among the teams;
 * - tool calls: evenly among the teams and the wave's other agents that have worker tools; the
 *   teams' shares are held for them (the others draw on the rest, `reservedToolCalls`);
 * - active time: not split (children run at the same time), each gets what is left.
 *
 * A wave whose teams cannot each get what they need (the agent calls of their first wave, one
 * token, a positive amount of money) does not start: the run ends `budget_exceeded`. Pure.
 */
import type { CompiledBudget, CompiledGraph } from '../graph/types';
import { plural } from '../text/format';
import type { BudgetStop, UsageLedger } from './ledger';

/** A team agent of a wave, as the split reads it. */
export interface TeamNeed {
  /** Agent calls its child run's first wave takes (at least 1). */
  agentCalls: number;
}

/** What a wave holds, as the split reads it. */
export interface WaveParties {
  /** The wave's agents that are no team (each takes one agent call). */
  agents: number;
  /** Of those, the ones with worker tools (they share the tool calls with the teams). */
  toolAgents: number;
  /** The team agents, in wave order. */
  teams: readonly TeamNeed[];
}

/** Each team agent's caps, in wave order, and the tool calls held for them. */
export interface WaveShares {
  shares: CompiledBudget[];
  /** Tool calls the teams' shares hold: the wave's other agents may not take them. */
  reservedToolCalls: number;
  /** Set when the teams cannot each get what they need: the wave must not start. */
  short?: BudgetStop;
}

/** Texts of a wave the teams' shares cannot cover, so tests pin them. */
export const SHARE_TEXTS = {
  agentCalls: (limit: number, left: number, teams: number, needed: number) =>
    `agent call budget ${limit} would be exceeded: the next wave's ${plural(teams, 'team agent')} need ${plural(needed, 'agent call')} to start their runs ` +
    `but only ${left} of ${limit} remain${left === 1 ? 's' : ''} for them`,
  tokens: (limit: number, left: number, teams: number) =>
    `token budget ${limit} cannot be shared: the next wave's ${plural(teams, 'team agent')} need a token each but only ${plural(left, 'token')} remain${left === 1 ? 's' : ''}`,
  money: (limit: number, teams: number) => `money budget $${limit} cannot be shared among the next wave's ${plural(teams, 'team agent')}: too little is left`,
} as const;

/** Agent calls a team's child run takes in its first wave: its entry agents, or the one a selector picks. */
export function teamNeed(team: CompiledGraph): TeamNeed {
  return { agentCalls: Math.max(1, team.selector ? 1 : team.entry.length) };
}

/** The parties of a wave of `agents` (by name) of `graph`. */
export function waveParties(graph: CompiledGraph, agents: readonly string[]): WaveParties {
  const teams: TeamNeed[] = [];
  let others = 0;
  let toolAgents = 0;
  for (const name of agents) {
    const agent = graph.agents[name];
    if (agent?.team) teams.push(teamNeed(agent.team.graph));
    else {
      others += 1;
      if (agent && agent.tools.some((t) => t !== 'goal' && t !== 'signal')) toolAgents += 1;
    }
  }
  return { agents: others, toolAgents, teams };
}

/** `total` split into `parts` whole shares, in order, the first ones taking the remainder. */
function evenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  return Array.from({ length: parts }, (_, i) => base + (i < total % parts ? 1 : 0));
}

/** The agent calls of each team: what its first wave needs, then the rest evenly; else evenly. */
function agentCallShares(left: number, teams: readonly TeamNeed[]): { shares: number[]; short: boolean } {
  const needed = teams.reduce((sum, t) => sum + t.agentCalls, 0);
  if (needed > left) return { shares: evenly(Math.max(left, teams.length), teams.length), short: true };
  const extra = evenly(left - needed, teams.length);
  return { shares: teams.map((t, i) => t.agentCalls + extra[i]), short: false };
}

/**
 * The caps of each team agent of a wave: its share of what `parent` has left after `used` (see the
 * module doc), which the team's own budget may lower further. `short` says the wave must not start;
 * the shares are then an even split that still never exceeds what is left.
 */
export function shareWave(parent: CompiledBudget, used: UsageLedger, activeMs: number, wave: WaveParties): WaveShares {
  const k = wave.teams.length;
  const shares: CompiledBudget[] = wave.teams.map(() => ({}));
  if (k === 0) return { shares, reservedToolCalls: 0 };
  let short: BudgetStop | undefined;
  const stop = (reason: BudgetStop['reason'], reasonText: string, limit: number, spent: number): BudgetStop => ({ reason, reasonText, status: 'budget_exceeded', limit, used: spent });

  if (parent.maxAgentCalls !== undefined) {
    const left = parent.maxAgentCalls - used.agentCalls - wave.agents;
    const calls = agentCallShares(left, wave.teams);
    calls.shares.forEach((n, i) => (shares[i].maxAgentCalls = n));
    if (calls.short) {
      const needed = wave.teams.reduce((sum, t) => sum + t.agentCalls, 0);
      short ??= stop('max_turns_exceeded', SHARE_TEXTS.agentCalls(parent.maxAgentCalls, Math.max(0, left), k, needed), parent.maxAgentCalls, used.agentCalls);
    }
  }
  if (parent.maxTotalTokens !== undefined) {
    const left = parent.maxTotalTokens - used.totalTokens;
    if (left < k) short ??= stop('token_budget_exceeded', SHARE_TEXTS.tokens(parent.maxTotalTokens, Math.max(0, left), k), parent.maxTotalTokens, used.totalTokens);
    evenly(Math.max(left, k), k).forEach((n, i) => (shares[i].maxTotalTokens = n));
  }
  if (parent.maxCostUsd !== undefined) {
    // whole picodollars, rounded down, so the shares never add up to more than is left
    const each = Math.floor(((parent.maxCostUsd - used.costUsd) / k) * 1e12) / 1e12;
    if (!(each > 0)) short ??= stop('money_budget_exceeded', SHARE_TEXTS.money(parent.maxCostUsd, k), parent.maxCostUsd, used.costUsd);
    for (const share of shares) share.maxCostUsd = each > 0 ? each : 1e-12;
  }
  let reservedToolCalls = 0;
  if (parent.maxToolCalls !== undefined) {
    // a team may get none: its runs then refuse every tool call, and end when one is asked for
    const left = Math.max(0, parent.maxToolCalls - (used.toolCalls?.total ?? 0));
    const split = evenly(left, k + wave.toolAgents);
    shares.forEach((share, i) => {
      share.maxToolCalls = split[i];
      reservedToolCalls += split[i];
    });
  }
  if (parent.maxDurationMs !== undefined) {
    for (const share of shares) share.maxDurationMs = Math.max(1, parent.maxDurationMs - Math.floor(activeMs));
  }
  return { shares, reservedToolCalls, ...(short ? { short } : {}) };
}
