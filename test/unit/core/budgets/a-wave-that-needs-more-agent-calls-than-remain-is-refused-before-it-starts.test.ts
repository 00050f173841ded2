import { checkWaveBudget, emptyLedger, type UsageLedger } from '../../../../src/core/budgets/ledger';
import { finalLine } from '../../../../src/core/ending/final-line';

const ledger = (over: Partial<UsageLedger>): UsageLedger => ({ ...emptyLedger(), ...over });

describe('checkWaveBudget (the check before a wave)', () => {
  it('lets a wave through that uses the remaining agent calls exactly', () => {
    expect(checkWaveBudget({ maxAgentCalls: 4 }, ledger({ agentCalls: 1 }), 0, 3)).toBeNull();
    expect(checkWaveBudget({ maxAgentCalls: 4 }, ledger({ agentCalls: 3 }), 0, 1)).toBeNull();
  });

  it('refuses a wave of 3 when 2 calls remain, with the figures', () => {
    expect(checkWaveBudget({ maxAgentCalls: 3 }, ledger({ agentCalls: 1 }), 0, 3)).toEqual({
      reason: 'max_turns_exceeded',
      reasonText:
        'agent call budget 3 would be exceeded: the next wave needs 3 agent calls but only 2 of 3 remain (1 agent call dispatched)',
      status: 'budget_exceeded',
      limit: 3,
      used: 1,
    });
    expect(checkWaveBudget({ maxAgentCalls: 10 }, ledger({ agentCalls: 9 }), 0, 2)?.reasonText).toBe(
      'agent call budget 10 would be exceeded: the next wave needs 2 agent calls but only 1 of 10 remains (9 agent calls dispatched)',
    );
  });

  it('reports a crossed budget as checkBudget does, before looking at the wave', () => {
    expect(checkWaveBudget({ maxAgentCalls: 3 }, ledger({ agentCalls: 3 }), 0, 2)?.reasonText).toBe(
      'agent call budget 3 reached (3 agent calls dispatched)',
    );
    expect(checkWaveBudget({ maxTotalTokens: 10, maxAgentCalls: 3 }, ledger({ totalTokens: 10, agentCalls: 1 }), 0, 5)?.reason).toBe(
      'token_budget_exceeded',
    );
  });

  it('ignores the wave size without max_agent_calls, and a size of 0 is the plain check', () => {
    expect(checkWaveBudget({ maxTotalTokens: 100 }, ledger({ agentCalls: 1000 }), 0, 50)).toBeNull();
    expect(checkWaveBudget({ maxAgentCalls: 3 }, ledger({ agentCalls: 2 }), 0, 0)).toBeNull();
  });

  it('the refused wave gives the CLI a final line with the setting to raise', () => {
    const stop = checkWaveBudget({ maxAgentCalls: 3 }, ledger({ agentCalls: 1 }), 0, 3)!;
    expect(
      finalLine({ status: 'budget_exceeded', reason: stop.reason, reasonText: stop.reasonText, rounds: 1, usage: { agentCalls: 1, costUsd: 0, totalTokens: 10 } }),
    ).toBe(
      'stopped: agent call budget 3 would be exceeded: the next wave needs 3 agent calls but only 2 of 3 remain (1 agent call dispatched); raise budget.max_agent_calls to continue',
    );
  });
});
