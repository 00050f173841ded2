import { saneTokenCounts, tokenCount, usdAmount } from '../../../../src/core/budgets/counts';
import { addUsage, checkBudget, computeCostUsd, emptyLedger, recordCall, recordTeamRun, usdSpentText } from '../../../../src/core/budgets/ledger';
import type { TokenCounts } from '../../../../src/core/conditions/view';

const pricing = { priced: { input: 2, output: 8 } };
/** Token counts as an endpoint might have sent them, cast past the type as JSON would be. */
const bogus = (p: unknown, c: unknown, t: unknown) => ({ promptTokens: p, completionTokens: c, totalTokens: t }) as unknown as TokenCounts;

describe('tokenCount and usdAmount', () => {
  it('keep whole counts and finite amounts from 0', () => {
    expect([tokenCount(0), tokenCount(12), tokenCount(2.7)]).toEqual([0, 12, 2]);
    expect([usdAmount(0), usdAmount(0.25)]).toEqual([0, 0.25]);
  });

  it('count anything else as 0, and hold huge counts at 2^53 - 1', () => {
    for (const n of [-1, Number.NaN, '00NaN', '12', null, undefined, {}, [], Number.NEGATIVE_INFINITY]) {
      expect(tokenCount(n)).toBe(0);
      expect(usdAmount(n)).toBe(0);
    }
    expect(tokenCount(1e308)).toBe(Number.MAX_SAFE_INTEGER);
    expect(tokenCount(Number.POSITIVE_INFINITY)).toBe(Number.MAX_SAFE_INTEGER);
    expect(usdAmount(Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('saneTokenCounts keeps a sane object as it is', () => {
    const usage = { promptTokens: 1, completionTokens: 2, totalTokens: 3 };
    expect(saneTokenCounts(usage)).toBe(usage);
    expect(saneTokenCounts(bogus(-5, '00NaN', 1e308))).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: Number.MAX_SAFE_INTEGER });
  });
});

describe('the ledger with usage that is not counts', () => {
  it('costs are finite amounts from 0, never NaN or null', () => {
    for (const usage of [bogus(-1_000_000, -5, -1_000_005), bogus('00NaN', {}, null), bogus(1e308, 1e308, 1e308)]) {
      const cost = computeCostUsd('priced', usage, pricing);
      expect(Number.isFinite(cost)).toBe(true);
      expect(cost).toBeGreaterThanOrEqual(0);
    }
    expect(computeCostUsd('constructor', bogus(1, 1, 2), pricing)).toBe(0);
  });

  it('totals stay whole, finite and from 0, so a token budget compares numbers', () => {
    const ledger = emptyLedger();
    for (const usage of [bogus(-1_000_000, -5, -1_000_005), bogus('00NaN', {}, null), bogus(1e308, 1e308, 1e308), bogus(1e308, 1e308, 1e308)]) {
      recordCall(ledger, { kind: 'agent', agent: 'writer', model: 'priced', usage, round: 1, pricing });
    }
    for (const n of [ledger.promptTokens, ledger.completionTokens, ledger.totalTokens, ledger.costUsd, ledger.byAgent.writer.totalTokens, ledger.byRound[0].totalTokens]) {
      expect(Number.isFinite(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
    }
    expect(ledger.totalTokens).toBe(Number.MAX_SAFE_INTEGER);
    expect(checkBudget({ maxTotalTokens: 100 }, ledger, 0)?.reason).toBe('token_budget_exceeded');
    expect(addUsage(bogus(Number.NaN, 1, 1), bogus(1, -1, 1))).toEqual({ promptTokens: 1, completionTokens: 1, totalTokens: 2 });
  });

  it("a child run's ledger with nonsense in it adds as counts", () => {
    const child = { ...emptyLedger(), promptTokens: Number.NaN, completionTokens: -3, totalTokens: 10, costUsd: null as unknown as number };
    const ledger = recordTeamRun(emptyLedger(), { agent: 'team', round: 1, usage: child });
    expect(ledger).toMatchObject({ promptTokens: 0, completionTokens: 0, totalTokens: 10, costUsd: 0 });
  });

  it('money spent reads $? for what is not an amount (a status of an older worker)', () => {
    expect(usdSpentText(0.51234)).toBe('$0.5123');
    expect(usdSpentText(null as unknown as number)).toBe('$?');
    expect(usdSpentText(Number.NaN)).toBe('$?');
  });
});
