import type { DevServer } from '../../src/dev/temporal-server';
import { startHarness, type Harness } from '../helpers/runs';
import { startDedicatedServer } from '../helpers/temporal';
import { followRun, type FollowEvent } from '../../src/client';

describe('continue-as-new', () => {
  let server: DevServer;
  let h: Harness;
  beforeAll(async () => {
    server = await startDedicatedServer({ 'limit.historyCount.suggestContinueAsNew': 40 });
    h = await startHarness({ address: server.address });
  });
  afterAll(async () => {
    await h?.close();
    await server?.stop();
  });

  test('a loop long enough to continue-as-new ends correctly with counters carried over', async () => {
    let n = 0;
    h.stub.respond((req) => (req.agent === 'critic' ? { text: `critique ${++n}` } : undefined));
    const handle = await h.start(`
name: long
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 12
  termination:
    any_of:
      - max_iterations: 12
`);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(result.iterations).toEqual({ 'critic,writer': 12 });
    expect(result.steps).toBe(24);
    expect(result.usage.agentCalls).toBe(24);
    expect(result.results.critic.count).toBe(12);
    expect(h.stub.hits('writer')).toBe(12);
    expect(h.stub.hits('critic')).toBe(12);

    const first = h.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    const description = await first.describe();
    expect(description.status.name).toBe('CONTINUED_AS_NEW');
    // every later run stays small: no history grows past a few times the threshold
    const latest = await h.client.workflow.getHandle(handle.workflowId).describe();
    expect(latest.historyLength).toBeLessThan(120);
  });

  test('a follower keeps following across continue-as-new: every step, each new run, then the result', async () => {
    h.stub.reset();
    const handle = await h.start(`
name: long-followed
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 12
  termination:
    any_of:
      - max_iterations: 12
`);
    const events: FollowEvent[] = [];
    const result = await followRun(handle, (e) => events.push(e));
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 24 });
    const steps = events.flatMap((e) => (e.kind === 'step' ? [e.step.step] : []));
    expect(steps).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const runs = events.flatMap((e) => (e.kind === 'started' ? [e.runId] : []));
    expect(runs.length).toBeGreaterThan(1);
    expect(new Set(runs).size).toBe(runs.length);
    expect(events.find((e) => e.kind === 'started')).toMatchObject({ graph: { name: 'long-followed', maxIterations: 12 } });
  });
});
