import {
  createGoal,
  goalElapsedMs,
  goalSnapshot,
  GOAL_HISTORY_MAX,
  pauseGoalClock,
  resumeGoalClock,
  withGoalHistory,
  type GoalState,
} from '../../../../src/core/goals';

const CFG = { objective: 'Ship v1', maxTurns: 10, maxDurationMs: 9_000_000 };

function goal(over: Partial<GoalState> = {}): GoalState {
  return { ...createGoal(CFG, 0), ...over };
}

describe('createGoal', () => {
  it('starts an active goal with zero turns, the configured budgets and one "set" history entry', () => {
    const g = createGoal(CFG, 1234);
    expect(g).toEqual({
      objective: 'Ship v1',
      turnCount: 0,
      maxTurns: 10,
      maxDurationMs: 9_000_000,
      startedAt: 1234,
      totalPausedMs: 0,
      status: 'active',
      history: [{ type: 'set', detail: 'Goal set: Ship v1', at: 1234 }],
    });
    expect('pausedAt' in g).toBe(false);
  });

  it('keeps success criteria and constraints when configured', () => {
    const g = createGoal({ ...CFG, successCriteria: 'tests pass', constraints: 'no new deps' }, 0);
    expect(g.successCriteria).toBe('tests pass');
    expect(g.constraints).toBe('no new deps');
  });
});

describe('goalElapsedMs (EasyAI §2 cases 2–3)', () => {
  it('is now − startedAt when never paused', () => {
    expect(goalElapsedMs(goal({ startedAt: 0 }), 5000)).toBe(5000);
  });

  it('is frozen at pausedAt and excludes totalPausedMs while paused', () => {
    const g = goal({ startedAt: 0, pausedAt: 3000, totalPausedMs: 500 });
    expect(goalElapsedMs(g, 10_000)).toBe(2500);
    expect(goalElapsedMs(g, 99_000)).toBe(2500);
  });

  it('never goes negative (EasyAI did not clamp)', () => {
    expect(goalElapsedMs(goal({ startedAt: 10_000 }), 5000)).toBe(0);
  });
});

describe('goal clock pause/resume (EasyAI §2 cases 4–6)', () => {
  it('pause sets pausedAt; a second pause returns the same object unchanged', () => {
    const p = pauseGoalClock(goal(), 3000);
    expect(p.pausedAt).toBe(3000);
    expect(pauseGoalClock(p, 4000)).toBe(p);
  });

  it('resume adds the paused time and clears pausedAt; a second resume returns the same object', () => {
    const r = resumeGoalClock(goal({ pausedAt: 3000, totalPausedMs: 500 }), 7000);
    expect(r.totalPausedMs).toBe(4500);
    expect('pausedAt' in r).toBe(false);
    expect(resumeGoalClock(r, 9000)).toBe(r);
  });

  it('resume on a goal that was never paused changes nothing', () => {
    const g = goal();
    expect(resumeGoalClock(g, 7000)).toBe(g);
    expect(g.totalPausedMs).toBe(0);
  });

  it('a pause/resume cycle removes exactly the waiting time from elapsed', () => {
    let g = goal({ startedAt: 0 });
    g = pauseGoalClock(g, 1000);
    g = pauseGoalClock(g, 2000);
    g = resumeGoalClock(g, 61_000);
    g = resumeGoalClock(g, 70_000);
    expect(goalElapsedMs(g, 100_000)).toBe(40_000);
  });

  it('does not mutate its input', () => {
    const g = goal();
    pauseGoalClock(g, 5);
    expect(g.pausedAt).toBeUndefined();
  });
});

describe('goal history', () => {
  it('keeps the last 20 entries (EasyAI §2 case 7)', () => {
    let g = goal({ history: [] });
    for (let i = 1; i <= 21; i++) g = withGoalHistory(g, 'auto-continue', `e${i}`, i);
    expect(GOAL_HISTORY_MAX).toBe(20);
    expect(g.history).toHaveLength(20);
    expect(g.history[0].detail).toBe('e2');
    expect(g.history[19].detail).toBe('e21');
  });

  it('records the agent when given', () => {
    const g = withGoalHistory(goal({ history: [] }), 'update_status', 'x', 5, 'writer');
    expect(g.history).toEqual([{ type: 'update_status', detail: 'x', at: 5, agent: 'writer' }]);
  });
});

describe('goalSnapshot', () => {
  it('exposes what the goal tool validates against and nothing else', () => {
    const g = goal({ turnCount: 3, successCriteria: 'c', pausedAt: 5, totalPausedMs: 9 });
    expect(goalSnapshot(g)).toEqual({
      objective: 'Ship v1',
      successCriteria: 'c',
      status: 'active',
      turnCount: 3,
      maxTurns: 10,
    });
  });
});
