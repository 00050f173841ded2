import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { troupe } from '../helpers/cli';
import { stubGate } from '../helpers/stub-llm';
import { statusQuery } from '../../src/contract';
import { GOAL_TEXTS } from '../../src/core/goals/texts';

const goalConfig = (goal: string, agentExtra = '') => `
name: goal-run
agents:
  worker:
    instructions: "Work toward the goal."
    tools: [goal]
    ${agentExtra}
collaboration:
  topology: pipeline
  agents: [worker]
goal:
${goal}
`;

const done = (evidence?: string) => ({
  name: 'goal',
  arguments: { action: 'update_status', status: 'completed', ...(evidence !== undefined ? { evidence } : {}) },
});

describe('goals and auto-continuation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('a goal that needs 3 rounds: completed with evidence in round 3, two continuations, escaped objective', async () => {
    h.stub.script('worker', [
      { text: 'step 1 done' },
      { text: 'step 2 done' },
      { toolCalls: [done('all 12 tests pass')] },
      { text: 'finished' },
    ]);
    const r = await h.run(goalConfig(`  objective: 'ship <b> & "q"'\n  max_turns: 5`));

    expect(r).toMatchObject({ status: 'completed', reason: 'goal_completed', rounds: 3 });
    expect(r.goal).toMatchObject({ status: 'completed', turnCount: 2, maxTurns: 5, completionEvidence: 'all 12 tests pass' });
    const prompts = h.stub.requestsFor('worker').map((q) => q.prompt);
    expect(prompts[0]).toContain('<goal_framework>');
    expect(prompts[0]).toContain('ship &lt;b&gt; &amp; &quot;q&quot;');
    expect(prompts[1]).toContain('<goal_continuation>');
    expect(prompts[1]).toContain('Turns used: 1/5');
    expect(prompts[1]).toMatch(/Time elapsed: \d+s\/9000s/);
    expect(prompts[1]).toContain('ship &lt;b&gt; &amp; &quot;q&quot;');
    expect(prompts[2]).toContain('Turns used: 2/5');
    expect(r.usage.agentCalls).toBe(3);
  });

  test('goal update_status completed without evidence: the model gets an error tool result and the goal stays active', async () => {
    h.stub.script('worker', [{ toolCalls: [done()] }, { text: 'ok' }]);
    const r = await h.run(goalConfig(`  objective: "finish the report"\n  max_turns: 1`));
    const second = h.stub.requestsFor('worker')[1];
    const toolMessage = second.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.content).toMatch(/evidence/i);
    expect(toolMessage.content).toMatch(/error/i);
    expect(r.goal?.completionEvidence).toBeUndefined();
    // the invalid call changed nothing: no agent ever reported on the goal
    expect(r).toMatchObject({ status: 'limit_reached', reason: 'goal_never_reported' });
  });

  test('a goal an agent reported on that runs out of turns ends goal_turn_limit, with the exact stop reason', async () => {
    h.stub.script('worker', [
      { toolCalls: [{ name: 'goal', arguments: { action: 'update_objective', objective: 'ship v1 first' } }] },
      { text: 'working' },
      { text: 'still working' },
    ]);
    const r = await h.run(goalConfig(`  objective: "ship"\n  max_turns: 1`));
    expect(r).toMatchObject({ status: 'limit_reached', reason: 'goal_turn_limit', reasonText: 'Auto-continue turn limit reached (1/1)', rounds: 2 });
  });

  test('turn limit → limit_reached with the exact stop reason', async () => {
    const r = await h.run(goalConfig(`  objective: "never done"\n  max_turns: 2`));
    // the agent never called the goal tool: the limit says so, and the reason is its own
    expect(r).toMatchObject({ status: 'limit_reached', reason: 'goal_never_reported', rounds: 3 });
    expect(r.reasonText).toBe(GOAL_TEXTS.neverReported('Auto-continue turn limit reached (2/2)'));
    expect(r.goal?.stopReason).toBe(r.reasonText);
  });

  test('duration limit → limit_reached with the exact stop reason', async () => {
    h.stub.script('worker', [{ text: 'slow', delayMs: 1200 }]);
    const r = await h.run(goalConfig(`  objective: "slow goal"\n  max_turns: 10\n  max_duration_ms: 2000`));
    expect(r).toMatchObject({ status: 'limit_reached', reason: 'goal_never_reported', rounds: 2 });
    // elapsed is whole seconds of active time (EasyAI's format); ≥ 2 s after two 1.2 s rounds
    expect(r.reasonText).toMatch(/^Duration limit reached \([2-9]s \/ 2s\), and no agent ever reported on the goal with the goal tool$/);
  });

  test('time paused by signal does not count: a run paused longer than max_duration_ms still finishes its rounds', async () => {
    // the first reply is held until the pause is in, so the pause lands during round 1's call
    const gate = stubGate();
    h.stub.script('worker', [gate.hold({ text: 'working' }), { text: 'step' }]);
    const handle = await h.start(goalConfig(`  objective: "pausable goal"\n  max_turns: 2\n  max_duration_ms: 3000`));
    await h.stub.waitForRequests(1, 'worker');
    expect((await troupe('pause', handle.workflowId)).code).toBe(0);
    await waitForStatus(handle, (s) => s.phase === 'paused');
    gate.open();
    await waitForStatus(handle, (s) => s.phase === 'paused' && s.inFlight.length === 0 && s.steps === 1);
    // the time under test: the run stays paused for longer than max_duration_ms
    await new Promise((r) => setTimeout(r, 3500));
    expect(h.stub.hits('worker')).toBe(1);
    expect(await handle.query(statusQuery)).toMatchObject({ phase: 'paused', steps: 1, inFlight: [] });
    expect((await troupe('resume', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'limit_reached', reason: 'goal_never_reported', rounds: 3 });
    expect(r.goal!.elapsedMs).toBeLessThan(3000);
    expect(h.stub.hits('worker')).toBe(3);
  }, 60_000);
});
