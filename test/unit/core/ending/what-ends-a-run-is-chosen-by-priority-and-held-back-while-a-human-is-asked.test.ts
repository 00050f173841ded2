import { decideNext, graphEnd, pickEnd, type Situation } from '../../../../src/core/ending/decide';
import { ENDS } from '../../../../src/core/ending/decide';
import type { RunEnd } from '../../../../src/core/ending/result';
import type { Stop } from '../../../../src/core/conditions/evaluate';
import type { BudgetStop } from '../../../../src/core/budgets/ledger';

const quiet = (over: Partial<Situation> = {}): Situation => ({
  point: 'after_wave',
  paused: false,
  goalPaused: false,
  awaitingHumans: false,
  holdsResults: false,
  frontierEmpty: false,
  exits: [],
  termination: null,
  cap: null,
  budget: null,
  ...over,
});

const stop = (reason: string, status: 'completed' | 'exhausted', priority: number): Stop => ({ reason, reasonText: `${reason}: x`, status, priority });
const maxMessages = stop('max_messages', 'exhausted', 3);
const timeout = stop('timeout', 'exhausted', 4);
const budget: BudgetStop = { reason: 'max_turns_exceeded', reasonText: 'agent call budget 2 reached', status: 'budget_exceeded', limit: 2, used: 2 };
const failure: RunEnd = { status: 'failed', reason: 'fatal_error', reasonText: 'fatal_error: agent a: boom' };
const goalEnd: RunEnd = { status: 'completed', reason: 'goal_completed', reasonText: 'Goal completed: done' };

describe('pickEnd', () => {
  it('takes the lowest priority and keeps the earlier candidate on a tie', () => {
    const exit = graphEnd(['critic']);
    expect(pickEnd([undefined, { status: 'exhausted', reason: 'max_iterations', reasonText: 'm' }, exit])).toBe(exit);
    const a: RunEnd = { status: 'exhausted', reason: 'max_messages', reasonText: 'first' };
    const b: RunEnd = { status: 'exhausted', reason: 'max_iterations', reasonText: 'second' };
    expect(pickEnd([a, b])).toBe(a);
    expect(pickEnd([b, a])).toBe(b);
    expect(pickEnd([null, undefined])).toBeUndefined();
  });

  it('goal_completed (0) beats exit (1) beats stuck (2) beats the cap (3) beats timeout (4)', () => {
    const ends = ['timeout', 'max_iterations', 'stuck', 'exit', 'goal_completed'].map(
      (reason): RunEnd => ({ status: 'completed', reason, reasonText: reason }),
    );
    expect(pickEnd(ends)?.reason).toBe('goal_completed');
    expect(pickEnd(ends.slice(0, 4))?.reason).toBe('exit');
    expect(pickEnd(ends.slice(0, 3))?.reason).toBe('stuck');
    expect(pickEnd(ends.slice(0, 2))?.reason).toBe('max_iterations');
  });
});

describe('decideNext: hard ends come first', () => {
  it('stop, then a failure, then a timer', () => {
    const timedOut: RunEnd = { status: 'exhausted', reason: 'timeout', reasonText: 't' };
    expect(decideNext(quiet({ stop: { reason: 'enough' }, failure, timedOut, termination: maxMessages }))).toEqual({
      kind: 'end_run',
      end: ENDS.userStop('enough'),
    });
    expect(decideNext(quiet({ failure, timedOut }))).toEqual({ kind: 'end_run', end: failure });
    expect(decideNext(quiet({ timedOut, awaitingHumans: true }))).toEqual({ kind: 'end_round', end: timedOut });
  });
});

describe('decideNext after a wave', () => {
  it('a condition that holds ends the round; a budget ends the run only when no condition holds', () => {
    expect(decideNext(quiet({ termination: maxMessages, budget }))).toMatchObject({ kind: 'end_round', end: { reason: 'max_messages' } });
    expect(decideNext(quiet({ budget }))).toMatchObject({ kind: 'end_run', end: { reason: 'max_turns_exceeded', status: 'budget_exceeded' } });
    expect(decideNext(quiet())).toEqual({ kind: 'run_wave' });
  });

  it('an empty next wave ends by exit or dead end, but not while results are held', () => {
    expect(decideNext(quiet({ frontierEmpty: true, exits: ['b'] }))).toMatchObject({ kind: 'end_round', end: { reason: 'exit' } });
    expect(decideNext(quiet({ frontierEmpty: true }))).toMatchObject({ kind: 'end_round', end: { reason: 'dead_end' } });
    expect(decideNext(quiet({ frontierEmpty: true, holdsResults: true }))).toEqual({ kind: 'run_wave' });
  });

  it('the goal, the termination expression, the cap and the graph end compete by priority', () => {
    const s = quiet({ goalEnd, termination: maxMessages, cap: { group: 'a,b', cap: 3 }, frontierEmpty: true, exits: ['b'] });
    expect(decideNext(s)).toMatchObject({ kind: 'end_round', end: goalEnd });
    expect(decideNext({ ...s, goalEnd: undefined })).toMatchObject({ end: { reason: 'exit' } });
    expect(decideNext(quiet({ cap: { group: 'a,b', cap: 3 } }))).toMatchObject({
      end: { reason: 'max_iterations', reasonText: 'max_iterations: loop a,b reached 3' },
    });
    expect(decideNext(quiet({ goalEnd: { status: 'blocked', reason: 'goal_blocked', reasonText: 'b' } }))).toMatchObject({ kind: 'end_run' });
  });

  it('open requests hold a condition end back: the run waits for the human ', () => {
    const s = quiet({ termination: maxMessages, awaitingHumans: true, holdsResults: true });
    expect(decideNext(s)).toEqual({ kind: 'wait', for: 'humans' });
  });

  it('a paused goal holds the round end back until resume', () => {
    const s = quiet({ goalPaused: true, frontierEmpty: true, exits: ['w'] });
    expect(decideNext(s)).toEqual({ kind: 'wait', for: 'goal' });
  });

  it('only hard limits end the run while a request is open: budgets and timeout', () => {
    expect(decideNext(quiet({ awaitingHumans: true, budget, termination: maxMessages }))).toMatchObject({
      kind: 'end_run',
      end: { reason: 'max_turns_exceeded' },
    });
    expect(decideNext(quiet({ awaitingHumans: true, termination: timeout }))).toMatchObject({
      kind: 'end_round',
      end: { reason: 'timeout' },
    });
    expect(decideNext(quiet({ goalPaused: true, termination: stop('result_match', 'completed', 1) }))).toEqual({
      kind: 'wait',
      for: 'goal',
    });
  });

  it('a user pause does not hold an end back after a wave', () => {
    expect(decideNext(quiet({ paused: true, termination: maxMessages }))).toMatchObject({ kind: 'end_round' });
    expect(decideNext(quiet({ paused: true }))).toEqual({ kind: 'run_wave' });
  });
});

describe('decideNext before a wave', () => {
  const before = (over: Partial<Situation>) => quiet({ point: 'before_wave', ...over });

  it('waits for humans, a paused goal and a pause, in that order', () => {
    expect(decideNext(before({ paused: true, goalPaused: true, awaitingHumans: true }))).toEqual({ kind: 'wait', for: 'humans' });
    expect(decideNext(before({ paused: true, goalPaused: true }))).toEqual({ kind: 'wait', for: 'goal' });
    expect(decideNext(before({ paused: true }))).toEqual({ kind: 'wait', for: 'pause' });
  });

  it('checks the cap before every wave, so a human decision cannot route past it', () => {
    const s = before({ cap: { group: 'critic,writer', cap: 1 } });
    expect(decideNext(s)).toMatchObject({ kind: 'end_round', end: { reason: 'max_iterations' } });
  });

  it('ends when a condition already holds, refuses a wave the budget cannot pay for, else runs it', () => {
    expect(decideNext(before({ termination: maxMessages }))).toMatchObject({ kind: 'end_round' });
    expect(decideNext(before({ budget }))).toMatchObject({ kind: 'end_run', end: { status: 'budget_exceeded' } });
    expect(decideNext(before({}))).toEqual({ kind: 'run_wave' });
  });
});

describe('decideNext before a re-dispatch at the round end', () => {
  it('ignores termination and the cap; waits for humans; refuses it when a budget is crossed', () => {
    const s = quiet({ point: 'before_retry', termination: maxMessages, cap: { group: 'g', cap: 1 } });
    expect(decideNext(s)).toEqual({ kind: 'run_wave' });
    expect(decideNext({ ...s, awaitingHumans: true })).toEqual({ kind: 'wait', for: 'humans' });
    expect(decideNext({ ...s, budget })).toMatchObject({ kind: 'end_run', end: { reason: 'max_turns_exceeded' } });
  });
});

describe('a tool call the budget refused', () => {
  const refused: BudgetStop = { reason: 'tool_budget_exceeded', reasonText: 'tool call budget 1 reached', status: 'budget_exceeded', limit: 1, used: 1 };

  it('ends the run budget_exceeded even when the agent exited on the same wave', () => {
    const s = quiet({ frontierEmpty: true, exits: ['publisher'], budget: refused });
    expect(decideNext(s)).toEqual({ kind: 'end_run', end: { status: 'budget_exceeded', reason: 'tool_budget_exceeded', reasonText: refused.reasonText } });
  });

  it('a condition that holds on the same wave still wins, and any other budget still yields to the exit', () => {
    expect(decideNext(quiet({ frontierEmpty: true, exits: ['p'], budget: refused, termination: maxMessages }))).toMatchObject({ end: { reason: 'max_messages' } });
    expect(decideNext(quiet({ frontierEmpty: true, exits: ['p'], budget }))).toMatchObject({ kind: 'end_round', end: { reason: 'exit' } });
  });
});
