import { buildRunResult, buildStatusView, finalAgents, finalText } from '../../../../src/core/ending/result';
import { createGoal, reactivatePausedGoal, tryGoalEvent } from '../../../../src/core/goals';
import { decide, openRequest } from '../../../../src/core/humans/requests';
import { activeMs, startClocks, stopClocks } from '../../../../src/core/state/clock';
import { createRunState } from '../../../../src/core/state/state';
import { recordResult } from '../../../../src/core/waves/record';
import { completeGraph, reply } from '../../fixtures/drive-machine';

const graph = completeGraph({
  edges: [
    { from: 'parent', to: 'writer', exit: false },
    { from: 'writer', to: 'critic', exit: false },
    { from: 'critic', to: 'parent', exit: true },
  ],
  goal: { objective: 'ship it', maxTurns: 3, maxDurationMs: 60_000 },
});

describe('the active clock and the goal clock stop and start together', () => {
  it('counts only running time, and stopping or starting twice changes nothing', () => {
    const s = createRunState(graph, 'task', 'wf', 1_000);
    expect(activeMs(s, 1_500)).toBe(500);
    stopClocks(s, 2_000);
    stopClocks(s, 2_500);
    expect(activeMs(s, 9_000)).toBe(1_000);
    expect(s.goal?.pausedAt).toBe(2_000);
    startClocks(s, 10_000);
    startClocks(s, 10_500);
    expect(activeMs(s, 10_250)).toBe(1_250);
    expect(s.goal?.totalPausedMs).toBe(8_000);
    expect(s.goal?.pausedAt).toBeUndefined();
  });
});

describe('the status view', () => {
  it('is running, then awaiting_human while a request is open, then finished', () => {
    const s = createRunState(graph, 'task', 'wf', 0);
    expect(buildStatusView(s, 10, [], undefined)).toMatchObject({ phase: 'running', round: 1, wave: 0, frontier: ['writer'], pending: [] });
    openRequest(s, { kind: 'approval', agent: 'writer', summary: 'ok?', now: 5 });
    expect(buildStatusView(s, 10, ['critic'], undefined)).toMatchObject({
      phase: 'awaiting_human',
      inFlight: ['critic'],
      pending: [{ id: 'r1', kind: 'approval', agent: 'writer', summary: 'ok?', since: 5 }],
    });
    decide(s, 'r1', { kind: 'approve', at: 6 });
    expect(buildStatusView(s, 10, [], undefined).phase).toBe('running');
    const end = { status: 'completed' as const, reason: 'exit', reasonText: 'exit: critic took the exit edge' };
    expect(buildStatusView(s, 10, [], end)).toMatchObject({ phase: 'finished', final: end });
  });

  it('is paused by the user, or by the goal tool with its reason, until resume', () => {
    const s = createRunState(graph, 'task', 'wf', 0);
    s.paused = true;
    expect(buildStatusView(s, 1, [], undefined)).toMatchObject({ phase: 'paused', pause: { by: 'user' } });
    s.paused = false;
    s.goal = tryGoalEvent(s.goal!, { tool: 'goal', action: 'update_status', status: 'paused', reason: 'waiting for data' }, 1, 'writer').goal;
    expect(buildStatusView(s, 2, [], undefined)).toMatchObject({ phase: 'paused', pause: { by: 'goal', reason: 'Goal paused: waiting for data' } });
    s.goal = reactivatePausedGoal(s.goal, 3);
    const view = buildStatusView(s, 4, [], undefined);
    expect(view.phase).toBe('running');
    expect(view.pause).toBeUndefined();
  });

  it('shows the latest results in brief and the last 20 warnings', () => {
    const s = createRunState(graph, 'task', 'wf', 0);
    recordResult(s, graph, { item: { agent: 'writer', triggers: [] }, result: reply('x'.repeat(500)) }, 1);
    for (let i = 0; i < 30; i++) s.warnings.push(`w${i}`);
    const view = buildStatusView(s, 2, [], undefined);
    expect(view.latest.writer).toMatchObject({ count: 1, preview: 'x'.repeat(200) });
    expect(view.warnings).toEqual(Array.from({ length: 20 }, (_, i) => `w${i + 10}`));
    expect(view.usage.agentCalls).toBe(1);
  });
});

describe('buildRunResult', () => {
  it('takes the exit agents as final agents, in exit order, and joins several under headings', () => {
    const s = createRunState(graph, 'task', 'wf', 0);
    recordResult(s, graph, { item: { agent: 'writer', triggers: [] }, result: reply('draft') }, 1);
    recordResult(s, graph, { item: { agent: 'critic', triggers: [] }, result: reply('fine') }, 2);
    s.round.lastWave = ['critic'];
    expect(finalAgents(s)).toEqual(['critic']);
    s.round.exits = ['critic', 'writer', 'critic'];
    expect(finalAgents(s)).toEqual(['critic', 'writer']);
    expect(finalText(s, ['critic', 'writer'])).toBe('## critic\n\nfine\n\n## writer\n\ndraft');
  });

  it('carries the end, figures, goal and output, and lists requests left unanswered', () => {
    const s = createRunState(graph, 'task', 'wf', 0);
    recordResult(s, graph, { item: { agent: 'writer', triggers: [] }, result: reply('draft') }, 1);
    s.round.lastWave = ['writer'];
    openRequest(s, { kind: 'approval', agent: 'writer', summary: 'ok?', now: 5 });
    const end = { status: 'cancelled' as const, reason: 'user_stop', reasonText: 'user_stop: stopped by the user' };
    const r = buildRunResult(s, end, 100, { output: { a: 1 }, outputValid: true });
    expect(r).toMatchObject({
      workflowId: 'wf',
      status: 'cancelled',
      reason: 'user_stop',
      finalAgent: 'writer',
      finalText: 'draft',
      output: { a: 1 },
      outputValid: true,
      rounds: 1,
      steps: 1,
      results: { writer: { text: 'draft', count: 1 } },
      goal: { status: 'active', turnCount: 0, maxTurns: 3 },
      activeMs: 100,
      unanswered: [{ id: 'r1', kind: 'approval', agent: 'writer' }],
    });
    const none = createRunState(graph, 'task', 'wf', 0);
    expect(buildRunResult(none, end, 1).unanswered).toBeUndefined();
  });
});

describe('a goal made with createGoal starts active with one history entry', () => {
  it('records the objective', () => {
    expect(createGoal({ objective: 'o', maxTurns: 2, maxDurationMs: 5 }, 7)).toMatchObject({ status: 'active', history: [{ type: 'set', at: 7 }] });
  });
});
