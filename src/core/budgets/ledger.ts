/**
 * Usage, cost and budgets: a plain-JSON usage ledger that counts every LLM call (agents, judge,
 * compaction, tool rounds) and every call of a worker tool, cost from configured per-model prices,
 * and the hard budgets with reason texts that carry the figures.
 */
import type { CompiledBudget } from '../graph/types';
import { plural } from '../text/format';
import type { TokenCounts } from '../conditions/view';
import { tokenCount, usdAmount } from './counts';

/** Price of a model in USD per 1M tokens. */
interface ModelPrice {
  input: number;
  output: number;
}

/** One agent's share of the usage (its own dispatches). */
interface AgentUsage extends TokenCounts {
  costUsd: number;
  /** Dispatches of this agent. */
  calls: number;
}

/** One round's usage (every LLM call made in it). */
interface RoundUsage extends TokenCounts {
  round: number;
  costUsd: number;
}

/** Run-scoped usage: totals, per agent and per round. Plain JSON (workflow state and RunResult). */
export interface UsageLedger extends TokenCounts {
  costUsd: number;
  /** Agent dispatches (not attempts, not tool rounds): what `max_agent_calls` counts. */
  agentCalls: number;
  judgeCalls: number;
  compactionCalls: number;
  /** Chat-completions requests of every kind, tool rounds included. */
  llmRequests: number;
  byAgent: Record<string, AgentUsage>;
  byRound: RoundUsage[];
  /** Calls of worker tools; absent until the run's first one. */
  toolCalls?: ToolCallUsage;
  /** Transfers made (docs/teams.md, "Handoffs"); absent until the run's first one. */
  handoffs?: number;
  /** The selector's model calls (docs/teams.md, "Selector teams"); absent until the run's first one. */
  selectorCalls?: number;
}

/** Calls of worker tools (MCP servers and module tools): what `max_tool_calls` counts. */
interface ToolCallUsage {
  total: number;
  byAgent: Record<string, number>;
  /** By the tool's name in the role file (`files.write_file`). */
  byTool: Record<string, number>;
  /** Calls the tool budget refused: the run ends once the model has had its answer. */
  refused: number;
  /** The tool of the first refused call, for the stop reason. */
  refusedTool?: string;
}

/** One finished LLM activity to record. */
interface LedgerCall {
  kind: 'agent' | 'judge' | 'compaction' | 'selector';
  /** The agent dispatched, judged or compacted for; only `agent` calls go into `byAgent`. */
  agent?: string;
  /** Configured model name; cost uses it. */
  model: string;
  usage: TokenCounts;
  round: number;
  pricing: Record<string, ModelPrice>;
  /** Chat-completions requests the activity made (tool rounds); default 1. */
  llmCalls?: number;
}

type BudgetReason =
  | 'token_budget_exceeded'
  | 'money_budget_exceeded'
  | 'max_turns_exceeded'
  | 'duration_budget_exceeded'
  | 'tool_budget_exceeded';

/** A crossed budget: the run starts nothing new and ends `budget_exceeded`. */
export interface BudgetStop {
  reason: BudgetReason;
  reasonText: string;
  status: 'budget_exceeded';
  limit: number;
  used: number;
}

const round12 = (x: number): number => Math.round(x * 1e12) / 1e12;

/** `$0.50` for whole cents, else every decimal the user wrote (`$0.125`). */
function usdLimitText(usd: number): string {
  const cents = usd.toFixed(2);
  return Number(cents) === usd ? `$${cents}` : `$${usd}`;
}

/** Spent money with 4 decimals: `$0.5123` (anything but an amount, as a run of an older worker may hold, reads `$?`). */
export function usdSpentText(usd: number): string {
  return typeof usd === 'number' && Number.isFinite(usd) ? `$${usd.toFixed(4)}` : '$?';
}

/** Active time in seconds with at most one decimal: `61.2s`. */
function secondsSpentText(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

/** Budget reason texts and the CLI hints, in one place. */
const BUDGET_TEXTS = {
  token: (limit: number, used: number, calls: number) =>
    `token budget ${limit} reached (${used} tokens used after ${plural(calls, 'agent call')})`,
  money: (limit: number, spent: number, calls: number) =>
    `money budget ${usdLimitText(limit)} reached (${usdSpentText(spent)} spent after ${plural(calls, 'agent call')})`,
  turns: (limit: number, calls: number) => `agent call budget ${limit} reached (${plural(calls, 'agent call')} dispatched)`,
  turnsWave: (limit: number, calls: number, waveSize: number) =>
    `agent call budget ${limit} would be exceeded: the next wave needs ${plural(waveSize, 'agent call')} ` +
    `but only ${limit - calls} of ${limit} remain${limit - calls === 1 ? 's' : ''} (${plural(calls, 'agent call')} dispatched)`,
  tools: (limit: number, refusedTool: string) =>
    `tool call budget ${limit} reached (${plural(limit, 'tool call')} made; a call of ${refusedTool} was refused)`,
  duration: (limitMs: number, activeMs: number, calls: number) =>
    `duration budget ${secondsSpentText(limitMs)} reached (${secondsSpentText(activeMs)} of active time after ${plural(calls, 'agent call')})`,
  hints: {
    token_budget_exceeded: 'raise budget.max_total_tokens to continue',
    money_budget_exceeded: 'raise budget.max_cost_usd to continue',
    max_turns_exceeded: 'raise budget.max_agent_calls to continue',
    duration_budget_exceeded: 'raise budget.max_duration_ms to continue',
    tool_budget_exceeded: 'raise budget.max_tool_calls to continue',
  } satisfies Record<BudgetReason, string>,
} as const;

/**
 * USD cost of one call: prompt tokens at `input`, completion tokens at `output`, per 1M tokens; 0 for
 * an unpriced model. Always a finite amount from 0 (./counts.ts), whatever the usage holds.
 * @internal exported for tests
 */
export function computeCostUsd(model: string, usage: TokenCounts, pricing: Record<string, ModelPrice>): number {
  const price = Object.prototype.hasOwnProperty.call(pricing, model) ? pricing[model] : undefined;
  if (!price) return 0;
  const cost = (tokenCount(usage.promptTokens) * usdAmount(price.input) + tokenCount(usage.completionTokens) * usdAmount(price.output)) / 1_000_000;
  return usdAmount(round12(cost));
}

/** No tokens: the start of every sum. */
export const NO_USAGE: TokenCounts = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Sum of two token counts, each held to a whole count from 0 (./counts.ts). */
export function addUsage(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    promptTokens: tokenCount(tokenCount(a.promptTokens) + tokenCount(b.promptTokens)),
    completionTokens: tokenCount(tokenCount(a.completionTokens) + tokenCount(b.completionTokens)),
    totalTokens: tokenCount(tokenCount(a.totalTokens) + tokenCount(b.totalTokens)),
  };
}

/** A ledger with nothing recorded. */
export function emptyLedger(): UsageLedger {
  return {
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    costUsd: 0,
    agentCalls: 0,
    judgeCalls: 0,
    compactionCalls: 0,
    llmRequests: 0,
    byAgent: {},
    byRound: [],
  };
}

/** Adds `usage` and `cost` into `target`, in place, each held to a count or an amount (./counts.ts). */
function addInto<T extends TokenCounts & { costUsd: number }>(target: T, usage: TokenCounts, cost: number): void {
  target.promptTokens = tokenCount(tokenCount(target.promptTokens) + tokenCount(usage.promptTokens));
  target.completionTokens = tokenCount(tokenCount(target.completionTokens) + tokenCount(usage.completionTokens));
  target.totalTokens = tokenCount(tokenCount(target.totalTokens) + tokenCount(usage.totalTokens));
  target.costUsd = usdAmount(round12(usdAmount(target.costUsd) + usdAmount(cost)));
}

/**
 * Record one finished LLM activity into the ledger, in place (it lives in mutable workflow state),
 * and return it: totals, the call counter of its kind, its round and, for agent dispatches, its agent.
 */
export function recordCall(ledger: UsageLedger, call: LedgerCall): UsageLedger {
  const cost = computeCostUsd(call.model, call.usage, call.pricing);
  addInto(ledger, call.usage, cost);
  ledger.llmRequests += call.llmCalls ?? 1;
  switch (call.kind) {
    case 'agent': {
      ledger.agentCalls += 1;
      const name = call.agent ?? '?';
      const agent = (ledger.byAgent[name] ??= { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0, calls: 0 });
      addInto(agent, call.usage, cost);
      agent.calls += 1;
      break;
    }
    case 'judge':
      ledger.judgeCalls += 1;
      break;
    case 'compaction':
      ledger.compactionCalls += 1;
      break;
    case 'selector':
      ledger.selectorCalls = (ledger.selectorCalls ?? 0) + (call.llmCalls ?? 1);
      break;
    default: {
      const never: never = call.kind;
      throw new Error(`recordCall: unknown call kind ${String(never)}`);
    }
  }
  let round = ledger.byRound.find((r) => r.round === call.round);
  if (!round) {
    round = { round: call.round, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };
    ledger.byRound.push(round);
  }
  addInto(round, call.usage, cost);
  return ledger;
}

/**
 * Record a team agent's child run into the parent's ledger, in place (docs/teams.md, "Nested teams"):
 * its tokens, cost, agent calls, LLM requests, judge, compaction and selector calls and tool calls
 * count as the parent's; under `byAgent` the team agent has its tokens and cost and one dispatch.
 */
export function recordTeamRun(ledger: UsageLedger, run: { agent: string; round: number; usage: UsageLedger }): UsageLedger {
  const child = run.usage;
  addInto(ledger, child, child.costUsd);
  ledger.agentCalls += child.agentCalls;
  ledger.llmRequests += child.llmRequests;
  ledger.judgeCalls += child.judgeCalls;
  ledger.compactionCalls += child.compactionCalls;
  if (child.selectorCalls) ledger.selectorCalls = (ledger.selectorCalls ?? 0) + child.selectorCalls;
  if (child.handoffs) ledger.handoffs = (ledger.handoffs ?? 0) + child.handoffs;
  if (child.toolCalls) {
    const tools = toolUsage(ledger);
    tools.total += child.toolCalls.total;
    tools.byAgent[run.agent] = (tools.byAgent[run.agent] ?? 0) + child.toolCalls.total;
    for (const [tool, n] of Object.entries(child.toolCalls.byTool)) tools.byTool[tool] = (tools.byTool[tool] ?? 0) + n;
  }
  const agent = (ledger.byAgent[run.agent] ??= { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0, calls: 0 });
  addInto(agent, child, child.costUsd);
  agent.calls += 1;
  let round = ledger.byRound.find((r) => r.round === run.round);
  if (!round) {
    round = { round: run.round, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };
    ledger.byRound.push(round);
  }
  addInto(round, child, child.costUsd);
  return ledger;
}

/**
 * The first crossed budget (tokens, money, agent calls, active time; each `>=` its limit), or null.
 * Checked before each wave and after each result.
 */
export function checkBudget(budget: CompiledBudget, ledger: UsageLedger, activeMs: number): BudgetStop | null {
  const calls = ledger.agentCalls;
  const mk = (reason: BudgetReason, reasonText: string, limit: number, used: number): BudgetStop => ({
    reason,
    reasonText,
    status: 'budget_exceeded',
    limit,
    used,
  });
  if (budget.maxTotalTokens !== undefined && ledger.totalTokens >= budget.maxTotalTokens) {
    const t = ledger.totalTokens;
    return mk('token_budget_exceeded', BUDGET_TEXTS.token(budget.maxTotalTokens, t, calls), budget.maxTotalTokens, t);
  }
  if (budget.maxCostUsd !== undefined && ledger.costUsd >= budget.maxCostUsd) {
    const c = ledger.costUsd;
    return mk('money_budget_exceeded', BUDGET_TEXTS.money(budget.maxCostUsd, c, calls), budget.maxCostUsd, c);
  }
  if (budget.maxAgentCalls !== undefined && calls >= budget.maxAgentCalls) {
    return mk('max_turns_exceeded', BUDGET_TEXTS.turns(budget.maxAgentCalls, calls), budget.maxAgentCalls, calls);
  }
  if (budget.maxDurationMs !== undefined && activeMs >= budget.maxDurationMs) {
    const d = budget.maxDurationMs;
    return mk('duration_budget_exceeded', BUDGET_TEXTS.duration(d, activeMs, calls), d, activeMs);
  }
  const tools = ledger.toolCalls;
  if (budget.maxToolCalls !== undefined && tools && tools.refused > 0) {
    return mk('tool_budget_exceeded', BUDGET_TEXTS.tools(budget.maxToolCalls, tools.refusedTool ?? '?'), budget.maxToolCalls, tools.total);
  }
  return null;
}

/**
 * The check before a wave of `waveSize` dispatches: `checkBudget`, and also a wave that
 * would take the agent calls past `max_agent_calls`. Such a wave is refused whole (`max_turns_exceeded`)
 * rather than cut, since a partial wave would route differently; so the limit is never exceeded.
 */
export function checkWaveBudget(
  budget: CompiledBudget,
  ledger: UsageLedger,
  activeMs: number,
  waveSize: number,
): BudgetStop | null {
  const crossed = checkBudget(budget, ledger, activeMs);
  if (crossed) return crossed;
  const limit = budget.maxAgentCalls;
  const calls = ledger.agentCalls;
  if (limit === undefined || calls + waveSize <= limit) return null;
  return {
    reason: 'max_turns_exceeded',
    reasonText: BUDGET_TEXTS.turnsWave(limit, calls, waveSize),
    status: 'budget_exceeded',
    limit,
    used: calls,
  };
}

/** Whether a stop reason is one of the budget reasons. */
export function isBudgetReason(reason: string): reason is BudgetReason {
  return Object.prototype.hasOwnProperty.call(BUDGET_TEXTS.hints, reason);
}

/** The actionable suffix of the CLI's final line for a budget stop, e.g. `raise budget.max_cost_usd to continue`. */
export function budgetHint(stop: Pick<BudgetStop, 'reason'>): string {
  return BUDGET_TEXTS.hints[stop.reason];
}

function toolUsage(ledger: UsageLedger): ToolCallUsage {
  return (ledger.toolCalls ??= { total: 0, byAgent: {}, byTool: {}, refused: 0 });
}

/** Whether `max_tool_calls` still allows a call (nothing is counted). */
export function toolCallAllowed(ledger: UsageLedger, budget: CompiledBudget): boolean {
  return budget.maxToolCalls === undefined || (ledger.toolCalls?.total ?? 0) < budget.maxToolCalls;
}

/**
 * Take one call of a worker tool from the budget, in place: true when `max_tool_calls` allows it (it
 * is then counted), false when it is refused (the refusal is counted; the run ends after the
 * model's next answer). Checked before every tool call.
 */
export function takeToolCall(ledger: UsageLedger, budget: CompiledBudget, agent: string, tool: string): boolean {
  const usage = toolUsage(ledger);
  if (budget.maxToolCalls !== undefined && usage.total >= budget.maxToolCalls) {
    usage.refused += 1;
    usage.refusedTool ??= tool;
    return false;
  }
  usage.total += 1;
  usage.byAgent[agent] = (usage.byAgent[agent] ?? 0) + 1;
  usage.byTool[tool] = (usage.byTool[tool] ?? 0) + 1;
  return true;
}
