import {
  addUsage,
  computeCostUsd,
  emptyLedger,
  recordCall,
} from '../../../../src/core/budgets/ledger';

const pricing = { 'gpt-4o-mini': { input: 0.15, output: 0.6 }, 'gpt-4o': { input: 2.5, output: 10 } };
const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });

describe('computeCostUsd', () => {
  it('prices prompt tokens at input and completion tokens at output, per 1M tokens', () => {
    expect(computeCostUsd('gpt-4o-mini', usage(1_000_000, 1_000_000), pricing)).toBe(0.75);
    expect(computeCostUsd('gpt-4o', usage(1000, 500), pricing)).toBe(0.0075);
    expect(computeCostUsd('gpt-4o-mini', usage(1234, 567), pricing)).toBeCloseTo(0.0005253, 12);
  });

  it('is 0 for a model without a price', () => {
    expect(computeCostUsd('local-llama', usage(1000, 1000), pricing)).toBe(0);
  });

  it('avoids binary-float noise in the stored figure', () => {
    expect(computeCostUsd('gpt-4o-mini', usage(2000, 0), { 'gpt-4o-mini': { input: 0.15, output: 0 } })).toBe(0.0003);
  });
});

describe('addUsage', () => {
  it('adds each count', () => {
    expect(addUsage(usage(1, 2), usage(10, 20))).toEqual(usage(11, 22));
  });
});

describe('the usage ledger', () => {
  it('starts empty', () => {
    expect(emptyLedger()).toEqual({
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
    });
  });

  it('records agent, judge and compaction calls into totals, per agent and per round', () => {
    const ledger = emptyLedger();
    recordCall(ledger, { kind: 'agent', agent: 'writer', model: 'gpt-4o', usage: usage(1000, 500), round: 1, pricing, llmCalls: 3 });
    recordCall(ledger, { kind: 'agent', agent: 'critic', model: 'gpt-4o-mini', usage: usage(2000, 100), round: 1, pricing });
    recordCall(ledger, { kind: 'judge', agent: 'critic', model: 'gpt-4o-mini', usage: usage(300, 20), round: 1, pricing });
    recordCall(ledger, { kind: 'compaction', agent: 'writer', model: 'gpt-4o-mini', usage: usage(4000, 200), round: 2, pricing });
    recordCall(ledger, { kind: 'agent', agent: 'writer', model: 'gpt-4o', usage: usage(1000, 500), round: 2, pricing });

    expect(ledger.agentCalls).toBe(3);
    expect(ledger.judgeCalls).toBe(1);
    expect(ledger.compactionCalls).toBe(1);
    expect(ledger.llmRequests).toBe(7);
    expect([ledger.promptTokens, ledger.completionTokens, ledger.totalTokens]).toEqual([8300, 1320, 9620]);
    expect(ledger.costUsd).toBeCloseTo(0.0075 * 2 + 0.00036 + 0.000057 + 0.00072, 10);
    expect(ledger.byAgent).toEqual({
      writer: { promptTokens: 2000, completionTokens: 1000, totalTokens: 3000, costUsd: 0.015, calls: 2 },
      critic: { promptTokens: 2000, completionTokens: 100, totalTokens: 2100, costUsd: 0.00036, calls: 1 },
    });
    expect(ledger.byRound.map((r) => [r.round, r.totalTokens])).toEqual([
      [1, 3920],
      [2, 5700],
    ]);
    expect(ledger.byRound[1].costUsd).toBeCloseTo(0.00072 + 0.0075, 10);
  });

  it('records in place and returns the same ledger (it lives in workflow state)', () => {
    const ledger = emptyLedger();
    expect(recordCall(ledger, { kind: 'judge', model: 'x', usage: usage(1, 1), round: 1, pricing })).toBe(ledger);
    expect(ledger.judgeCalls).toBe(1);
  });

  it('stays plain JSON', () => {
    const ledger = recordCall(emptyLedger(), { kind: 'agent', agent: 'a', model: 'gpt-4o', usage: usage(1, 1), round: 1, pricing });
    expect(JSON.parse(JSON.stringify(ledger))).toEqual(ledger);
  });
});
