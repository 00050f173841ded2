import { emptyLedger } from '../../../../src/core/budgets/ledger';
import { CARRY_BUDGET_BYTES, trimForCarry } from '../../../../src/core/state/carry';
import { newRound, type RunState } from '../../../../src/core/state/state';

const big = (tag: string) => `${tag}:` + 'x'.repeat(64 * 1024 - tag.length - 1);

function stateWith(agents: number): RunState {
  const names = Array.from({ length: agents }, (_, i) => `agent${i}`);
  return {
    workflowId: 'wf',
    task: 'task',
    round: newRound(1, 0),
    frontier: [],
    steps: 0,
    results: Object.fromEntries(names.map((n) => [n, { text: big(n), hash: 'abcdefabcdef', count: 1 }])),
    memory: Object.fromEntries(names.map((n) => [n, { own: [big(`${n}-1`), big(`${n}-2`)] }])),
    thread: names.slice(0, 8).map((n, i) => ({ agent: n, text: big(`t${i}`), seq: i + 1 })),
    threadSeq: 8,
    notes: { agent0: [{ kind: 'user_message', text: 'keep me' }] },
    broadcast: [],
    usage: emptyLedger(),
    signals: [],
    warnings: [],
    transcript: [],
    requests: [{ id: 'r1', kind: 'approval', agent: 'agent0', summary: 's', since: 0 }],
    requestCounter: 1,
    deferred: [],
    paused: true,
    clock: { accumulatedMs: 5, since: null },
    outputAttempts: {},
    compactionFailures: 0,
    continuedAsNew: 0,
  };
}

describe('trimForCarry (continue-as-new payload bound)', () => {
  test('a small state is carried untouched', () => {
    const s = stateWith(2);
    const before = JSON.stringify(s);
    expect(trimForCarry(s)).toBe(Buffer.byteLength(before));
    expect(JSON.stringify(s)).toBe(before);
  });

  test('a large state is cut below the budget, keeping results, requests, notes and flags whole', () => {
    const s = stateWith(10);
    expect(Buffer.byteLength(JSON.stringify(s))).toBeGreaterThan(2 * 1024 * 1024);
    const bytes = trimForCarry(s);
    expect(bytes).toBeLessThanOrEqual(CARRY_BUDGET_BYTES);
    expect(bytes).toBe(Buffer.byteLength(JSON.stringify(s)));
    expect(s.results.agent9.text).toBe(big('agent9'));
    expect(s.requests).toHaveLength(1);
    expect(s.notes.agent0[0].text).toBe('keep me');
    expect(s.paused).toBe(true);
    expect(s.memory.agent3.own[1].startsWith('agent3-2:')).toBe(true);
    expect(s.memory.agent3.own[1]).toMatch(/\[troupe: truncated \d+ bytes\]$/);
  });
});
