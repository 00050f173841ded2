import {
  clearCompletionChecks,
  registerCompletionCheck,
  registeredCompletionChecks,
  runCompletionChecks,
  type CompletionCheck,
  type CompletionContext,
} from '../../../../src/core/checks/pipeline';
import { createGoal, type GoalState } from '../../../../src/core/goals';

const NOW = 1_000_000;
const S = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };

function ctx(over: Partial<CompletionContext> = {}): CompletionContext {
  return {
    now: NOW,
    round: 1,
    status: 'completed',
    reason: 'exit',
    finalResults: [{ agent: 'writer', text: '{"score": 5}' }],
    outputAttempts: {},
    ...over,
  };
}

function goal(over: Partial<GoalState> = {}): GoalState {
  return { ...createGoal({ objective: 'o', maxTurns: 10, maxDurationMs: 9_000_000 }, NOW), reports: 1, ...over };
}

const spy = (name: string, verdict: ReturnType<CompletionCheck['check']>) => {
  const calls: CompletionContext[] = [];
  const check: CompletionCheck = {
    name,
    check: (c) => {
      calls.push(c as CompletionContext);
      return verdict;
    },
  };
  return { check, calls };
};

afterEach(() => clearCompletionChecks());

describe('runCompletionChecks: order and first continue wins', () => {
  it('an active goal continues with a new round and the later checks do not run', () => {
    const later = spy('later', { kind: 'continue', prompt: 'no' });
    const r = runCompletionChecks(ctx({ goal: goal(), output: { schema: S, maxRetries: 2 }, finalResults: [] }), [later.check]);
    expect(r).toMatchObject({ kind: 'continue', by: 'goal', action: 'new_round' });
    expect(r.kind === 'continue' && r.action === 'new_round' && r.prompt).toContain('<goal_continuation>');
    expect(r.goal?.turnCount).toBe(1);
    expect(later.calls).toHaveLength(0);
  });

  it('a goal at its limit counts as done: output check and custom checks still run', () => {
    const later = spy('later', { kind: 'done' });
    const r = runCompletionChecks(
      ctx({ goal: goal({ turnCount: 10 }), output: { schema: S, maxRetries: 2 } }),
      [later.check],
    );
    expect(r.kind).toBe('done');
    expect(r.goal?.status).toBe('limit_reached');
    expect(r.kind === 'done' && r.goalEnd).toEqual({
      status: 'limit_reached',
      reason: 'goal_turn_limit',
      reasonText: 'Auto-continue turn limit reached (10/10)',
    });
    expect(r.kind === 'done' && r.output).toEqual({ output: { score: 5 }, outputValid: true });
    expect(later.calls).toHaveLength(1);
    expect(later.calls[0].goal?.status).toBe('limit_reached');
  });

  it('after the goal, an invalid output re-dispatches the final agent with the retry prompt', () => {
    const later = spy('later', { kind: 'continue', prompt: 'no' });
    const r = runCompletionChecks(
      ctx({ goal: goal({ status: 'completed' }), output: { schema: S, maxRetries: 2 }, finalResults: [{ agent: 'w', text: '{}' }] }),
      [later.check],
    );
    expect(r).toMatchObject({ kind: 'continue', by: 'output', action: 'redispatch', outputAttempts: { w: 1 } });
    expect(r.kind === 'continue' && r.action === 'redispatch' && r.targets[0].agent).toBe('w');
    expect(r.kind === 'continue' && r.action === 'redispatch' && r.targets[0].prompt).toContain('(attempt 1/2)');
    expect(later.calls).toHaveLength(0);
  });

  it('a finished output check clears the attempts and reports outputValid false after max retries', () => {
    const r = runCompletionChecks(
      ctx({ output: { schema: S, maxRetries: 2 }, finalResults: [{ agent: 'w', text: '{}' }], outputAttempts: { w: 2 } }),
      [],
    );
    expect(r).toMatchObject({
      kind: 'done',
      outputAttempts: {},
      output: { outputValid: false, outputErrors: ["/: must have required property 'score'"] },
    });
  });

  it('custom checks run after the built-ins in order; done does not short-circuit, the first continue does', () => {
    const a = spy('a', { kind: 'done' });
    const b = spy('b', { kind: 'continue', prompt: 'again' });
    const c = spy('c', { kind: 'continue', prompt: 'never' });
    const r = runCompletionChecks(ctx(), [a.check, b.check, c.check]);
    expect(r).toMatchObject({ kind: 'continue', by: 'b', action: 'new_round', prompt: 'again' });
    expect([a.calls.length, b.calls.length, c.calls.length]).toEqual([1, 1, 0]);
  });

  it('a custom continue naming agents re-dispatches them with the prompt', () => {
    const b = spy('b', { kind: 'continue', prompt: 'fix it', agents: ['critic'] });
    expect(runCompletionChecks(ctx(), [b.check])).toMatchObject({
      kind: 'continue',
      action: 'redispatch',
      targets: [{ agent: 'critic', prompt: 'fix it' }],
    });
  });

  it('all done with no goal and no output → done with nothing to report', () => {
    expect(runCompletionChecks(ctx(), [])).toEqual({ kind: 'done', outputAttempts: {}, warnings: [] });
  });
});

describe('runCompletionChecks: a throwing check counts as done with a warning', () => {
  it('the next check still runs (EasyAI §2 case 35)', () => {
    const boom: CompletionCheck = {
      name: 'boom',
      check: () => {
        throw new Error('kaput');
      },
    };
    const next = spy('next', { kind: 'continue', prompt: 'p' });
    const r = runCompletionChecks(ctx(), [boom, next.check]);
    expect(r).toMatchObject({ kind: 'continue', by: 'next', warnings: ['completion check boom failed: kaput'] });
  });

  it('an invalid verdict is treated like a throw', () => {
    const bad = { name: 'bad', check: () => ({ kind: 'continue' }) as never };
    const r = runCompletionChecks(ctx(), [bad]);
    expect(r.kind).toBe('done');
    expect(r.warnings[0]).toMatch(/^completion check bad failed: /);
  });

  it('a throwing output validator counts as done with a warning and no output outcome', () => {
    const validator = {
      validate: () => {
        throw new Error('no validator');
      },
    };
    const r = runCompletionChecks(ctx({ output: { schema: S, maxRetries: 2 } }), [], validator);
    expect(r).toEqual({ kind: 'done', outputAttempts: {}, warnings: ['completion check output failed: no validator'] });
  });
});

describe('registerCompletionCheck', () => {
  it('registered checks run by default, in registration order', () => {
    const seen: string[] = [];
    registerCompletionCheck('first', () => (seen.push('first'), { kind: 'done' }));
    registerCompletionCheck('second', () => (seen.push('second'), { kind: 'continue', prompt: 'go' }));
    expect(runCompletionChecks(ctx())).toMatchObject({ kind: 'continue', by: 'second' });
    expect(seen).toEqual(['first', 'second']);
  });

  it('re-registering a name replaces the check in place', () => {
    registerCompletionCheck('x', () => ({ kind: 'done' }));
    registerCompletionCheck('y', () => ({ kind: 'done' }));
    registerCompletionCheck('x', () => ({ kind: 'continue', prompt: 'new' }));
    expect(registeredCompletionChecks().map((c) => c.name)).toEqual(['x', 'y']);
    expect(runCompletionChecks(ctx())).toMatchObject({ by: 'x', prompt: 'new' });
  });

  it('built-in names and bad names are refused', () => {
    expect(() => registerCompletionCheck('goal', () => ({ kind: 'done' }))).toThrow(/built-in/);
    expect(() => registerCompletionCheck('output', () => ({ kind: 'done' }))).toThrow(/built-in/);
    expect(() => registerCompletionCheck('Bad Name', () => ({ kind: 'done' }))).toThrow(/invalid name/);
  });
});
