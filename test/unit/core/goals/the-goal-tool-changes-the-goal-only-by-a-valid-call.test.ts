import { ENDS } from '../../../../src/core/ending/decide';
import {
  applyGoalEvents,
  createGoal,
  goalCheck,
  goalEventError,
  reactivatePausedGoal,
  tryGoalEvent,
  type GoalEvent,
  type GoalState,
} from '../../../../src/core/goals';

const NOW = 50_000;

function goal(over: Partial<GoalState> = {}): GoalState {
  return { ...createGoal({ objective: 'Ship v1', maxTurns: 10, maxDurationMs: 9_000_000 }, 0), turnCount: 3, ...over };
}

const ev = (e: Omit<GoalEvent, 'tool'>): GoalEvent => ({ tool: 'goal', ...e }) as GoalEvent;
const last = (g: GoalState) => g.history[g.history.length - 1];
/** The goal after one event (an invalid one leaves it as it was). */
const applyGoalEvent = (g: GoalState, e: GoalEvent, now: number, agent: string): GoalState => tryGoalEvent(g, e, now, agent).goal;

describe('update_status', () => {
  it('completed with evidence → completed, evidence kept, reasonText says why (EasyAI §2 case 39)', () => {
    const g = applyGoalEvent(goal(), ev({ action: 'update_status', status: 'completed', evidence: 'tests pass' }), NOW, 'writer');
    expect(g.status).toBe('completed');
    expect(g.completionEvidence).toBe('tests pass');
    expect(g.stopReason).toBe('Goal completed: tests pass');
    expect(last(g)).toEqual({ type: 'update_status', detail: 'Status changed to completed', at: NOW, agent: 'writer' });
    expect(ENDS.goal(g)?.reasonText).toBe('Goal completed: tests pass');
  });

  it('completed WITHOUT evidence is rejected and changes nothing (troupe differs from EasyAI case 42)', () => {
    const g = goal();
    for (const evidence of [undefined, '', '   ']) {
      const out = tryGoalEvent(g, ev({ action: 'update_status', status: 'completed', evidence }), NOW, 'writer');
      expect(out).toEqual({
        ok: false,
        goal: g,
        warning: 'ignored goal event from writer: update_status completed needs non-empty evidence',
      });
      expect(applyGoalEvent(g, ev({ action: 'update_status', status: 'completed', evidence }), NOW, 'w')).toBe(g);
    }
  });

  it('blocked with a reason → blocked with blockedReason (EasyAI §2 case 40)', () => {
    const g = applyGoalEvent(goal(), ev({ action: 'update_status', status: 'blocked', reason: 'need API key' }), NOW, 'w');
    expect(g.status).toBe('blocked');
    expect(g.blockedReason).toBe('need API key');
    expect(g.stopReason).toBe('Goal blocked: need API key');
    expect(last(g).detail).toBe('Status changed to blocked: need API key');
  });

  it('blocked without a reason is rejected (troupe differs from EasyAI case 41)', () => {
    expect(goalEventError(ev({ action: 'update_status', status: 'blocked' }))).toBe(
      'update_status blocked needs a non-empty reason',
    );
    expect(tryGoalEvent(goal(), ev({ action: 'update_status', status: 'blocked' }), NOW, 'w').ok).toBe(false);
  });

  it('a missing status is rejected', () => {
    expect(goalEventError(ev({ action: 'update_status' }))).toBe(
      'update_status needs status active, completed, blocked or paused',
    );
  });

  it('paused → paused with a stop reason; the clock is left to the caller', () => {
    const g = applyGoalEvent(goal(), ev({ action: 'update_status', status: 'paused' }), NOW, 'w');
    expect(g.status).toBe('paused');
    expect(g.stopReason).toBe('Goal paused via goal tool');
    expect(g.pausedAt).toBeUndefined();
  });

  it('active after completed clears stopReason and keeps the old evidence (EasyAI §2 case 48)', () => {
    const done = applyGoalEvent(goal(), ev({ action: 'update_status', status: 'completed', evidence: 'e' }), NOW, 'w');
    const again = applyGoalEvent(done, ev({ action: 'update_status', status: 'active' }), NOW, 'w');
    expect(again.status).toBe('active');
    expect(again.stopReason).toBeUndefined();
    expect(again.completionEvidence).toBe('e');
  });

  it('leaving blocked clears the stale blockedReason', () => {
    const blocked = applyGoalEvent(goal(), ev({ action: 'update_status', status: 'blocked', reason: 'r' }), NOW, 'w');
    const active = applyGoalEvent(blocked, ev({ action: 'update_status', status: 'active' }), NOW, 'w');
    expect(active.blockedReason).toBeUndefined();
  });

  it('a revived limit_reached goal hits its limit again at the next check (EasyAI §2 case 48)', () => {
    const limited = goal({ status: 'limit_reached', turnCount: 10, limitReason: 'goal_turn_limit' });
    const revived = applyGoalEvent(limited, ev({ action: 'update_status', status: 'active' }), NOW, 'w');
    expect(revived.limitReason).toBeUndefined();
    expect(goalCheck(revived, NOW).kind).toBe('stop');
  });
});

describe('update_objective and add_evidence', () => {
  it('update_objective replaces the objective and records the first 100 chars', () => {
    const objective = 'x'.repeat(150);
    const g = applyGoalEvent(goal(), ev({ action: 'update_objective', objective }), NOW, 'w');
    expect(g.objective).toBe(objective);
    expect(last(g)).toMatchObject({ type: 'objective_updated', detail: `Objective updated: ${'x'.repeat(100)}` });
  });

  it('update_objective without an objective is rejected (EasyAI §2 case 45 said "Invalid action")', () => {
    expect(tryGoalEvent(goal(), ev({ action: 'update_objective', objective: ' ' }), NOW, 'w')).toMatchObject({
      ok: false,
      warning: 'ignored goal event from w: update_objective needs a non-empty objective',
    });
  });

  it('add_evidence marks the goal completed with that evidence', () => {
    const g = applyGoalEvent(goal(), ev({ action: 'add_evidence', evidence: 'PR merged' }), NOW, 'w');
    expect(g.status).toBe('completed');
    expect(g.completionEvidence).toBe('PR merged');
    expect(last(g)).toMatchObject({ type: 'evidence_added', detail: 'Evidence: PR merged' });
  });

  it('add_evidence with empty evidence is rejected (troupe differs from EasyAI case 44)', () => {
    expect(tryGoalEvent(goal(), ev({ action: 'add_evidence', evidence: '' }), NOW, 'w').ok).toBe(false);
  });
});

describe('applyGoalEvents (a wave, in wave order)', () => {
  it('completed ends the round after the wave', () => {
    const r = applyGoalEvents(goal(), [{ agent: 'a', event: ev({ action: 'update_status', status: 'completed', evidence: 'e' }) }], NOW);
    expect(r.effect).toBe('end_round');
    expect(r.goal.status).toBe('completed');
    expect(r.warnings).toEqual([]);
  });

  it('the last event wins and decides the effect', () => {
    const r = applyGoalEvents(
      goal(),
      [
        { agent: 'a', event: ev({ action: 'update_status', status: 'blocked', reason: 'r' }) },
        { agent: 'b', event: ev({ action: 'update_status', status: 'paused' }) },
      ],
      NOW,
    );
    expect(r.goal.status).toBe('paused');
    expect(r.effect).toBe('pause_run');
    expect(r.goal.history.slice(-2).map((h) => h.agent)).toEqual(['a', 'b']);
  });

  it('only invalid events → no effect, even on an already completed goal, and warnings', () => {
    const done = goal({ status: 'completed' });
    const r = applyGoalEvents(done, [{ agent: 'a', event: ev({ action: 'add_evidence' }) }], NOW);
    expect(r.effect).toBe('none');
    expect(r.goal).toBe(done);
    expect(r.warnings).toEqual(['ignored goal event from a: add_evidence needs non-empty evidence']);
  });
});

describe('reactivatePausedGoal (resume signal)', () => {
  it('sets a paused goal active with a history entry', () => {
    const paused = applyGoalEvent(goal(), ev({ action: 'update_status', status: 'paused' }), NOW, 'w');
    const g = reactivatePausedGoal(paused, NOW + 5);
    expect(g.status).toBe('active');
    expect(g.stopReason).toBeUndefined();
    expect(last(g)).toEqual({ type: 'resumed', detail: 'Status changed to active: resumed by user', at: NOW + 5 });
  });

  it('leaves other statuses alone', () => {
    const g = goal({ status: 'blocked' });
    expect(reactivatePausedGoal(g, NOW)).toBe(g);
  });
});
