import { hashResult } from '../../../../src/core/text/hash';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { verdictKey } from '../../../../src/core/conditions/view';
import type { Condition } from '../../../../src/core/conditions/types';
import type { TerminationView } from '../../../../src/core/conditions/view';
import { record, recordAll, term, view } from '../../fixtures/termination-view';

const maxIter = (n: number): Condition => ({ kind: 'max_iterations', n });
const timeout = (ms: number): Condition => ({ kind: 'timeout_ms', ms });
const approved: Condition = { kind: 'result_matches', agent: 'critic', contains: 'APPROVED' };
const maxMsgs = (n: number): Condition => ({ kind: 'max_messages', n });
const mention = (text: string): Condition => ({ kind: 'text_mention', text });

describe('any_of / all_of at the top level', () => {
  it('any_of stops on the first holding item and names it (rolebox case 42)', () => {
    const t = term([maxIter(3), timeout(1000)]);
    expect(evaluateTermination(t, view({ loopCounters: { g: 5 } }))?.reason).toBe('max_iterations');
    const t2 = term([maxIter(3), timeout(100)]);
    expect(evaluateTermination(t2, view({ loopCounters: { g: 1 }, roundActiveMs: 500 }))?.reason).toBe('timeout');
    expect(evaluateTermination(t2, view({ loopCounters: { g: 1 }, roundActiveMs: 50 }))).toBeNull();
  });

  it('all_of stops only when every item holds at the same evaluation (rolebox case 42)', () => {
    const t = term([], [maxIter(3), timeout(100)]);
    expect(evaluateTermination(t, view({ loopCounters: { g: 3 }, roundActiveMs: 100 }))?.reason).toBe('max_iterations');
    expect(evaluateTermination(t, view({ loopCounters: { g: 3 }, roundActiveMs: 99 }))).toBeNull();
    expect(evaluateTermination(t, view({ loopCounters: { g: 2 }, roundActiveMs: 100 }))).toBeNull();
  });

  it('terminates when any_of holds OR all_of holds (rolebox ANDed them in its async evaluator)', () => {
    const t = term([timeout(1000)], [maxIter(2), approved]);
    const approvedOnce = recordAll(t, [['critic', 'APPROVED']], view({ loopCounters: { g: 2 } }));
    expect(evaluateTermination(t, approvedOnce)?.reason).toBe('result_match');
    expect(evaluateTermination(t, view({ roundActiveMs: 1000 }))?.reason).toBe('timeout');
    expect(evaluateTermination(t, view({ roundActiveMs: 999, loopCounters: { g: 2 } }))).toBeNull();
  });

  it('an all_of mixing max_iterations and result_matches needs both (rolebox stopped on the match alone)', () => {
    const t = term([], [maxIter(2), approved]);
    const approvedEarly = recordAll(t, [['critic', 'APPROVED']], view({ loopCounters: { 'critic,writer': 1 } }));
    expect(evaluateTermination(t, approvedEarly)).toBeNull();
    const capNoApproval = recordAll(t, [['critic', 'needs work']], view({ loopCounters: { 'critic,writer': 2 } }));
    expect(evaluateTermination(t, capNoApproval)).toBeNull();
    const both = recordAll(t, [['critic', 'APPROVED']], view({ loopCounters: { 'critic,writer': 2 } }));
    expect(evaluateTermination(t, both)).toEqual({
      reason: 'result_match',
      reasonText: 'result_match: critic contains "APPROVED"',
      priority: 1,
      status: 'completed',
    });
  });

  it('empty lists never terminate', () => {
    expect(evaluateTermination(term(), view({ roundActiveMs: 1e9, messages: 1e6 }))).toBeNull();
  });
});

describe('priority of the reason when several conditions hold', () => {
  function everythingHolds(): TerminationView {
    const all = term([{ kind: 'stuck', repeats: 2 }, approved]);
    const v = recordAll(all, [['critic', 'APPROVED'], ['critic', 'APPROVED']], view({ loopCounters: { g: 9 }, roundActiveMs: 1e6 }));
    return { ...v, verdicts: { [verdictKey('critic')]: { hash: hashResult('APPROVED'), converged: true } } };
  }
  const leaves: Record<string, Condition> = {
    timeout: timeout(10),
    max_iterations: maxIter(3),
    stuck: { kind: 'stuck', repeats: 2 },
    result_match: approved,
    converged: { kind: 'converged', agent: 'critic' },
  };

  it('inside a satisfied all_of: converged > result_match > stuck > max_iterations > timeout (rolebox case 43)', () => {
    const order = ['converged', 'result_match', 'stuck', 'max_iterations', 'timeout'];
    const v = everythingHolds();
    order.forEach((expected, i) => {
      const items = order.slice(i).reverse().map((r) => leaves[r]);
      expect(evaluateTermination(term([], items), v)?.reason).toBe(expected);
    });
  });

  it('across any_of and all_of, the best priority wins whichever list it is in', () => {
    const v = everythingHolds();
    expect(evaluateTermination(term([timeout(10)], [leaves.converged, leaves.stuck]), v)?.reason).toBe('converged');
  });

  it('ties go to list order, any_of before all_of', () => {
    const v = { ...recordAll(term([approved]), [['critic', 'APPROVED']]), signals: ['done'] };
    const signal: Condition = { kind: 'signal_observed', type: 'done' };
    expect(evaluateTermination(term([signal, approved]), v)?.reason).toBe('signal');
    expect(evaluateTermination(term([approved, signal]), v)?.reason).toBe('result_match');
    expect(evaluateTermination(term([approved], [signal]), v)?.reason).toBe('result_match');
  });

  it('two conditions at once: [converged, stuck 2] with equal hashes ends converged (rolebox case 47)', () => {
    const t = term([{ kind: 'converged', agent: 'critic' }, { kind: 'stuck', repeats: 2 }]);
    const v = recordAll(t, [['critic', 'same'], ['critic', 'same']]);
    expect(evaluateTermination(t, v)?.reason).toBe('stuck');
    const judged = { ...v, verdicts: { critic: { hash: hashResult('same'), converged: true } } };
    expect(evaluateTermination(t, judged)?.reason).toBe('converged');
  });

  it('an any_of of judged items holds when one verdict is positive (rolebox case 44)', () => {
    const t = term([
      { kind: 'converged', agent: 'a' },
      { kind: 'converged', agent: 'b' },
      { kind: 'converged', agent: 'c' },
    ]);
    const v = recordAll(t, [['a', 'x'], ['b', 'y'], ['c', 'z']]);
    const verdicts = {
      a: { hash: hashResult('x'), converged: false },
      b: { hash: hashResult('y'), converged: true },
      c: { hash: hashResult('z'), converged: false },
    };
    expect(evaluateTermination(t, { ...v, verdicts })?.reasonText).toBe('converged: judge accepted b');
  });
});

describe('nested composition', () => {
  it('a nested any_of inside all_of holds when one of its items holds', () => {
    const t = term([], [maxIter(2), { kind: 'any_of', items: [approved, timeout(100)] }]);
    expect(evaluateTermination(t, view({ loopCounters: { g: 2 } }))).toBeNull();
    expect(evaluateTermination(t, view({ loopCounters: { g: 2 }, roundActiveMs: 100 }))?.reason).toBe('max_iterations');
  });

  it('a nested all_of contributes its holding leaves to the reason', () => {
    const t = term([timeout(10), { kind: 'all_of', items: [maxIter(2), approved] }]);
    const v = recordAll(t, [['critic', 'APPROVED']], view({ loopCounters: { g: 2 }, roundActiveMs: 10 }));
    expect(evaluateTermination(t, v)?.reason).toBe('result_match');
  });

  it('a nested all_of that does not hold contributes nothing, even if some of its leaves hold', () => {
    const t = term([timeout(10), { kind: 'all_of', items: [maxIter(2), approved] }]);
    const v = recordAll(t, [['critic', 'APPROVED']], view({ loopCounters: { g: 1 }, roundActiveMs: 10 }));
    expect(evaluateTermination(t, v)?.reason).toBe('timeout');
  });
});

describe('AutoGen combinators adapted to rounds', () => {
  it('AND of max_messages(2) and text_mention("stop") needs both (case 12)', () => {
    const t = term([], [maxMsgs(2), mention('stop')]);
    expect(evaluateTermination(t, view())).toBeNull();
    const two = recordAll(t, [['a', 'Hello'], ['b', 'World']]);
    expect(evaluateTermination(t, two)).toBeNull();
    const stopped = recordAll(t, [['a', 'Hello'], ['b', 'stop']]);
    expect(evaluateTermination(t, stopped)).toEqual({
      reason: 'text_mention',
      reasonText: 'text_mention: "stop" in b',
      priority: 1,
      status: 'completed',
    });
  });

  it('AND keeps an event latch across evaluations of the round (case 35)', () => {
    const t = term([], [maxMsgs(2), mention('stop')]);
    const first = recordAll(t, [['a', 'stop']]);
    expect(evaluateTermination(t, first)).toBeNull();
    expect(evaluateTermination(t, record(first, t, 'a', 'ok'))?.reason).toBe('text_mention');
  });

  it('OR of max_messages(3) and text_mention("stop") (case 13)', () => {
    const t = term([maxMsgs(3), mention('stop')]);
    expect(evaluateTermination(t, recordAll(t, [['a', 'Hello'], ['b', 'World']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['a', 'Hello'], ['b', 'stop']]))?.reason).toBe('text_mention');
    expect(evaluateTermination(t, recordAll(t, [['a', 'Hello'], ['b', 'Hello'], ['a', 'Hello']]))?.reasonText).toBe(
      'max_messages: 3 agent results >= 3',
    );
    expect(evaluateTermination(t, recordAll(t, [['a', 'Hello'], ['b', 'Hello'], ['a', 'stop']]))?.reason).toBe(
      'text_mention',
    );
  });
});
