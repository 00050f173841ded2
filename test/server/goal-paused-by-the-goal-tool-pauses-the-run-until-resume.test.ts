/**
 * A goal the `goal` tool sets `paused` pauses the run, whatever else that wave did (here it also took
 * the exit edge): `status` shows phase `paused` with the reason and the resume command, nothing runs,
 * and after `troupe resume` the goal continues in a new round.
 */
import { troupe } from '../helpers/cli';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';

const CONFIG = `
name: goal-pause
agents:
  worker: { instructions: "Work toward the goal.", tools: [goal] }
collaboration:
  topology: pipeline
  agents: [worker]
goal:
  objective: "migrate the database"
  max_turns: 3
`;

const goal = (args: Record<string, unknown>) => ({ name: 'goal', arguments: args });

describe('the goal tool pauses the run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('paused on the wave that ends the round: the run waits for resume, then the goal continues to completion', async () => {
    h.stub.script('worker', [
      { toolCalls: [goal({ action: 'update_status', status: 'paused', reason: 'waiting for a maintenance window' })] },
      { text: 'paused until the window' },
      { toolCalls: [goal({ action: 'update_status', status: 'completed', evidence: 'migration ran, 0 errors' })] },
      { text: 'migrated' },
    ]);
    const handle = await h.start(CONFIG);
    const paused = await waitForStatus(handle, (s) => s.phase === 'paused');
    expect(paused.pause).toEqual({ by: 'goal', reason: 'Goal paused: waiting for a maintenance window' });
    expect(paused.goal).toMatchObject({ status: 'paused' });

    const status = await troupe('status', handle.workflowId);
    expect(status.stdout).toContain(`paused (Goal paused: waiting for a maintenance window) — resume with: troupe resume ${handle.workflowId}`);
    expect(h.stub.hits('worker')).toBe(2);

    expect((await troupe('resume', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'goal_completed', rounds: 2 });
    expect(r.goal).toMatchObject({ status: 'completed', turnCount: 1, completionEvidence: 'migration ran, 0 errors' });
    expect(h.stub.requestsFor('worker')[2].prompt).toContain('<goal_continuation>');
  });
});
