import { ENDS } from '../../../../src/core/ending/decide';
import {
  applyGoalEvents,
  createGoal,
  GOAL_TEXTS,
  escapeXml,
  goalCheck,
  goalFrameworkBlock,
  type GoalState,
} from '../../../../src/core/goals';

const NOW = 1_000_000_000;

/** A goal an agent has reported on once (a goal never reported on reaches its limits as goal_never_reported). */
function goal(over: Partial<GoalState> = {}): GoalState {
  return { ...createGoal({ objective: 'Ship v1', maxTurns: 10, maxDurationMs: 9_000_000 }, NOW), reports: 1, ...over };
}

function continued(g: GoalState, now = NOW) {
  const r = goalCheck(g, now);
  if (r.kind !== 'continue') throw new Error(`expected continue, got ${r.kind}`);
  return r;
}

function stopped(g: GoalState, now = NOW) {
  const r = goalCheck(g, now);
  if (r.kind !== 'stop') throw new Error(`expected stop, got ${r.kind}`);
  return r;
}

describe('goalCheck: not active (EasyAI §2 case 10)', () => {
  it.each(['paused', 'blocked', 'completed', 'limit_reached'] as const)('a %s goal is done', (status) => {
    expect(goalCheck(goal({ status, turnCount: 99 }), NOW)).toEqual({ kind: 'done' });
  });
});

describe('goalCheck: continuation (EasyAI §2 cases 12–13, 17)', () => {
  it('turn 0 → continue with turnCount 1, an auto-continue history entry and turns/time in the prompt', () => {
    const r = continued(goal());
    expect(r.goal.turnCount).toBe(1);
    expect(r.goal.history[r.goal.history.length - 1]).toEqual({ type: 'auto-continue', detail: 'Turn 1/10', at: NOW });
    expect(r.prompt).toContain('- Turns used: 1/10');
    expect(r.prompt).toContain('- Time elapsed: 0s/9000s');
  });

  it('turn 9 → continue to turn 10/10', () => {
    const r = continued(goal({ turnCount: 9 }));
    expect(r.goal.turnCount).toBe(10);
    expect(r.goal.history[r.goal.history.length - 1].detail).toBe('Turn 10/10');
    expect(r.prompt).toContain('- Turns used: 10/10');
  });

  it('paused time is excluded from the elapsed time shown', () => {
    const r = continued(goal({ startedAt: NOW - 9_000_000, totalPausedMs: 60_000 }));
    expect(r.prompt).toContain('- Time elapsed: 8940s/9000s');
  });

  it('a stopped clock cannot hit the duration limit (EasyAI §2 case 18)', () => {
    const r = goalCheck(goal({ startedAt: 0, pausedAt: 100_000 }), 10 ** 9);
    expect(r.kind).toBe('continue');
  });

  it('turnCount counts continuations: two continuations leave turnCount 2', () => {
    const first = continued(goal());
    const second = continued(first.goal, NOW + 1000);
    expect(second.goal.turnCount).toBe(2);
    expect(second.prompt).toContain('- Turns used: 2/10');
  });

  it('does not mutate the input goal', () => {
    const g = goal();
    continued(g);
    expect(g.turnCount).toBe(0);
    expect(g.history).toHaveLength(1);
  });
});

describe('goalCheck: limits (EasyAI §2 cases 14–16)', () => {
  it('turnCount 10/10 → limit_reached with the exact turn-limit text, turnCount unchanged', () => {
    const r = stopped(goal({ turnCount: 10 }));
    expect(r.reason).toBe('goal_turn_limit');
    expect(r.goal.status).toBe('limit_reached');
    expect(r.goal.stopReason).toBe('Auto-continue turn limit reached (10/10)');
    expect(r.goal.turnCount).toBe(10);
    expect(r.goal.history[r.goal.history.length - 1]).toEqual({
      type: 'limit',
      detail: 'Auto-continue turn limit reached (10/10)',
      at: NOW,
    });
  });

  it('uses the configured maxTurns in the text', () => {
    expect(stopped(goal({ turnCount: 3, maxTurns: 3 })).goal.stopReason).toBe('Auto-continue turn limit reached (3/3)');
  });

  it('elapsed ≥ maxDuration → limit_reached with the exact duration text', () => {
    const r = stopped(goal({ turnCount: 3, startedAt: NOW - 9_000_000 }));
    expect(r.reason).toBe('goal_duration_limit');
    expect(r.goal.stopReason).toBe('Duration limit reached (9000s / 9000s)');
    expect(r.goal.limitReason).toBe('goal_duration_limit');
  });

  it('formats seconds with integer division, as EasyAI', () => {
    const r = stopped(goal({ startedAt: NOW - 9_000_999 }));
    expect(r.goal.stopReason).toBe('Duration limit reached (9000s / 9000s)');
    const short = stopped(goal({ maxDurationMs: 1500, startedAt: NOW - 2999 }));
    expect(short.goal.stopReason).toBe('Duration limit reached (2s / 1s)');
  });

  it('turns are checked before duration when both are exceeded', () => {
    const r = stopped(goal({ turnCount: 10, startedAt: NOW - 20_000_000 }));
    expect(r.goal.stopReason).toBe('Auto-continue turn limit reached (10/10)');
  });

  it('with maxTurns 10 there are exactly 10 continuations, then the limit', () => {
    let g = goal();
    let continuations = 0;
    for (;;) {
      const r = goalCheck(g, NOW);
      if (r.kind !== 'continue') {
        expect(r.kind).toBe('stop');
        break;
      }
      continuations += 1;
      g = r.goal;
    }
    expect(continuations).toBe(10);
  });
});

describe('<goal_continuation> prompt', () => {
  it('has EasyAI\'s layout with the objective between tags', () => {
    const lines = continued(goal()).prompt.split('\n');
    expect(lines.slice(0, 6)).toEqual([
      '<goal_continuation>',
      'The goal below is still active. Continue working toward it.',
      '',
      '<goal_objective>',
      'Ship v1',
      '</goal_objective>',
    ]);
    expect(lines[lines.length - 2]).toBe('</goal_continuation>');
    expect(lines[lines.length - 1]).toBe('');
  });

  it('XML-escapes the objective (EasyAI §2 case 19)', () => {
    const p = continued(goal({ objective: 'Fix <b> & "q" \'x\'' })).prompt;
    expect(p).toContain('\nFix &lt;b&gt; &amp; &quot;q&quot; &apos;x&apos;\n');
    expect(p).not.toContain('<b>');
    expect(continued(goal({ objective: '<b> & "q"' })).prompt).toContain('&lt;b&gt; &amp; &quot;q&quot;');
  });

  it('escapes already-escaped text again', () => {
    expect(escapeXml('&lt;')).toBe('&amp;lt;');
  });

  it('lists the next steps: do, verify, report completed with evidence or blocked with a reason', () => {
    const p = continued(goal()).prompt;
    expect(p).toContain('## Next Steps\n1. Take the next concrete step toward the goal\n2. Verify your progress');
    expect(p).toMatch(/use the `goal` tool with action="update_status", status="completed", and provide evidence/);
    expect(p).toMatch(/status="blocked", and give the reason/);
  });

  it('includes escaped success criteria and constraints only when set', () => {
    const plain = continued(goal()).prompt;
    expect(plain).not.toContain('<success_criteria>');
    expect(plain).not.toContain('<constraints>');
    const p = continued(goal({ successCriteria: 'tests > 90%', constraints: 'no "rm"' })).prompt;
    expect(p).toContain('<success_criteria>\ntests &gt; 90%\n</success_criteria>');
    expect(p).toContain('<constraints>\nno &quot;rm&quot;\n</constraints>');
  });
});

describe('<goal_framework> block', () => {
  it('holds the escaped objective, criteria, constraints, budgets and how to report', () => {
    const g = goal({ objective: 'a<b', successCriteria: 'c&d', constraints: 'e>f', maxTurns: 4, maxDurationMs: 600_000 });
    const b = goalFrameworkBlock(g);
    expect(b.startsWith('<goal_framework>\n')).toBe(true);
    expect(b).toContain('</goal_framework>');
    expect(b).toContain('<goal_objective>\na&lt;b\n</goal_objective>');
    expect(b).toContain('<success_criteria>\nc&amp;d\n</success_criteria>');
    expect(b).toContain('<constraints>\ne&gt;f\n</constraints>');
    expect(b).toContain('- Maximum auto-continue turns: 4');
    expect(b).toContain('- Maximum duration: 600 seconds');
    expect(b).toContain('- Current turn: 0/4');
    expect(b).toContain('status="completed", evidence=');
    expect(b).toContain('status="blocked", reason=');
    expect(b).toContain('action="update_objective"');
  });
});

describe('ENDS.goal (how a finished goal ends the run)', () => {
  it('maps completed, blocked and both limits to run status, reason and reasonText = stopReason', () => {
    expect(ENDS.goal(goal({ status: 'completed', stopReason: 'Goal completed: tests pass' }))).toEqual({
      status: 'completed',
      reason: 'goal_completed',
      reasonText: 'Goal completed: tests pass',
    });
    expect(ENDS.goal(goal({ status: 'blocked', stopReason: 'Goal blocked: need key' }))).toEqual({
      status: 'blocked',
      reason: 'goal_blocked',
      reasonText: 'Goal blocked: need key',
    });
    expect(ENDS.goal(stopped(goal({ turnCount: 10 })).goal)).toEqual({
      status: 'limit_reached',
      reason: 'goal_turn_limit',
      reasonText: 'Auto-continue turn limit reached (10/10)',
    });
    expect(ENDS.goal(stopped(goal({ startedAt: NOW - 9_000_000 })).goal)).toEqual({
      status: 'limit_reached',
      reason: 'goal_duration_limit',
      reasonText: 'Duration limit reached (9000s / 9000s)',
    });
  });

  it('is undefined while the goal is active or paused', () => {
    expect(ENDS.goal(goal())).toBeUndefined();
    expect(ENDS.goal(goal({ status: 'paused' }))).toBeUndefined();
  });
});

describe('goalCheck: a goal no agent ever reported on', () => {
  it('reaches its turn limit as goal_never_reported, saying the goal tool was never called', () => {
    const r = goalCheck(goal({ turnCount: 10, reports: undefined }), NOW);
    expect(r).toMatchObject({ kind: 'stop', reason: 'goal_never_reported' });
    if (r.kind !== 'stop') throw new Error('expected stop');
    expect(ENDS.goal(r.goal)).toEqual({
      status: 'limit_reached',
      reason: 'goal_never_reported',
      reasonText: GOAL_TEXTS.neverReported(GOAL_TEXTS.turnLimit(10, 10)),
    });
  });

  it('keeps goal_turn_limit once an agent reported', () => {
    expect(goalCheck(goal({ turnCount: 10, reports: 1 }), NOW)).toMatchObject({ reason: 'goal_turn_limit' });
  });

  it('counts the goal tool calls applied', () => {
    const g = goal({ reports: undefined });
    const once = applyGoalEvents(g, [{ agent: 'w', event: { tool: 'goal', action: 'update_objective', objective: 'Ship v2' } }], NOW).goal;
    expect(once.reports).toBe(1);
    const refused = applyGoalEvents(once, [{ agent: 'w', event: { tool: 'goal', action: 'update_status', status: 'completed' } }], NOW).goal;
    expect(refused.reports).toBe(1);
  });
});
