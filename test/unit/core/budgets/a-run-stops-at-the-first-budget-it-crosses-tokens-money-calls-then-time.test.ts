import {
  budgetHint,
  checkBudget,
  emptyLedger,
  isBudgetReason,
  type UsageLedger,
} from '../../../../src/core/budgets/ledger';

function ledger(over: Partial<UsageLedger>): UsageLedger {
  return { ...emptyLedger(), ...over };
}

describe('checkBudget', () => {
  it('is null with no budget or below every limit', () => {
    expect(checkBudget({}, ledger({ totalTokens: 1e9, costUsd: 1e6, agentCalls: 1e6 }), 1e12)).toBeNull();
    const budget = { maxTotalTokens: 1000, maxCostUsd: 0.5, maxAgentCalls: 10, maxDurationMs: 60_000 };
    expect(checkBudget(budget, ledger({ totalTokens: 999, costUsd: 0.4999, agentCalls: 9 }), 59_999)).toBeNull();
  });

  it('stops on tokens at the limit, with the figures', () => {
    expect(checkBudget({ maxTotalTokens: 200_000 }, ledger({ totalTokens: 200_512, agentCalls: 14 }), 0)).toEqual({
      reason: 'token_budget_exceeded',
      reasonText: 'token budget 200000 reached (200512 tokens used after 14 agent calls)',
      status: 'budget_exceeded',
      limit: 200_000,
      used: 200_512,
    });
    expect(checkBudget({ maxTotalTokens: 10 }, ledger({ totalTokens: 10 }), 0)?.reason).toBe('token_budget_exceeded');
  });

  it('stops on money, with the limit and the spend', () => {
    const stop = checkBudget({ maxCostUsd: 0.5 }, ledger({ costUsd: 0.51234, agentCalls: 14 }), 0);
    expect(stop?.reason).toBe('money_budget_exceeded');
    expect(stop?.reasonText).toBe('money budget $0.50 reached ($0.5123 spent after 14 agent calls)');
    expect(checkBudget({ maxCostUsd: 2.5 }, ledger({ costUsd: 2.5, agentCalls: 1 }), 0)?.reasonText).toBe(
      'money budget $2.50 reached ($2.5000 spent after 1 agent call)',
    );
    expect(checkBudget({ maxCostUsd: 0.125 }, ledger({ costUsd: 0.13 }), 0)?.reasonText).toBe(
      'money budget $0.125 reached ($0.1300 spent after 0 agent calls)',
    );
  });

  it('stops on agent calls (dispatches) at the limit', () => {
    expect(checkBudget({ maxAgentCalls: 100 }, ledger({ agentCalls: 100 }), 0)).toEqual({
      reason: 'max_turns_exceeded',
      reasonText: 'agent call budget 100 reached (100 agent calls dispatched)',
      status: 'budget_exceeded',
      limit: 100,
      used: 100,
    });
    expect(checkBudget({ maxAgentCalls: 100 }, ledger({ agentCalls: 99, judgeCalls: 50 }), 0)).toBeNull();
  });

  it('stops on active time at the limit', () => {
    expect(checkBudget({ maxDurationMs: 60_000 }, ledger({ agentCalls: 7 }), 61_234)).toEqual({
      reason: 'duration_budget_exceeded',
      reasonText: 'duration budget 60s reached (61.2s of active time after 7 agent calls)',
      status: 'budget_exceeded',
      limit: 60_000,
      used: 61_234,
    });
  });

  it('reports the first crossed budget in the order tokens, money, calls, time', () => {
    const all = { maxTotalTokens: 1, maxCostUsd: 0.01, maxAgentCalls: 1, maxDurationMs: 1 };
    expect(checkBudget(all, ledger({ totalTokens: 5, costUsd: 1, agentCalls: 5 }), 5)?.reason).toBe('token_budget_exceeded');
    expect(checkBudget(all, ledger({ costUsd: 1, agentCalls: 5 }), 5)?.reason).toBe('money_budget_exceeded');
    expect(checkBudget(all, ledger({ agentCalls: 5 }), 5)?.reason).toBe('max_turns_exceeded');
    expect(checkBudget(all, ledger({}), 5)?.reason).toBe('duration_budget_exceeded');
  });
});

describe('budgetHint and helpers', () => {
  it.each([
    ['token_budget_exceeded', 'raise budget.max_total_tokens to continue'],
    ['money_budget_exceeded', 'raise budget.max_cost_usd to continue'],
    ['max_turns_exceeded', 'raise budget.max_agent_calls to continue'],
    ['duration_budget_exceeded', 'raise budget.max_duration_ms to continue'],
  ] as const)('%s → %s', (reason, hint) => {
    expect(budgetHint({ reason })).toBe(hint);
    expect(isBudgetReason(reason)).toBe(true);
  });

  it('isBudgetReason rejects other reasons', () => {
    expect(isBudgetReason('timeout')).toBe(false);
    expect(isBudgetReason('toString')).toBe(false);
  });

});
