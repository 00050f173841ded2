import { ContinueRefusedError, exportTeamState, listRuns, startRun } from '../../src/client';
import { startHarness, compileYaml, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

const PANEL = `
name: panel
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
  carol: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [alice, bob, carol]
  max_iterations: 5
  termination:
    any_of:
      - max_messages: 4
      - text_mention: DONE
`;

describe('a team that goes on (docs/semantics.md, "Teams that go on")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('a round-robin continued goes on from its cursor with the old thread; max_messages counts from 0 and an old DONE ends nothing', async () => {
    const graph = compileYaml(PANEL);
    // bob's first reply mentions DONE: the first run ends there, with carol next
    h.stub.script('bob', [{ text: 'bob reply 1 DONE later' }, {}]);
    const first = await h.start(graph, { task: 'plan a picnic', workflowId: uniqueWorkflowId('panel') });
    const r1 = await first.result();
    expect(r1).toMatchObject({ status: 'completed', reason: 'text_mention' });
    expect(r1.steps).toBe(2);
    const ts = r1.teamState!;
    expect(ts).toMatchObject({ version: 1, role: { name: 'panel', agents: ['alice', 'bob', 'carol'], topology: 'round-robin' }, threadId: first.workflowId });
    expect(ts.thread.map((e) => e.agent)).toEqual(['user', 'alice', 'bob']);
    expect(ts.cursor).toEqual({ kind: 'wave', wave: [{ agent: 'carol', triggers: expect.any(Array) }] });
    expect(ts.threadUsage.runs).toBe(1);

    const before = h.stub.requests.length;
    const second = await startRun(h.client, { role: graph, task: 'and bring cake', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue });
    expect(second.workflowId).toBe(`${first.workflowId}/2`);
    const r2 = await second.result();
    // the old DONE in the thread ends nothing: four messages of this run, from carol on
    expect(r2).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
    const asked = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(asked.map((q) => q.agent)).toEqual(['carol', 'alice', 'bob', 'carol']);
    const carol = asked[0].prompt;
    expect(carol.indexOf('plan a picnic')).toBeLessThan(carol.indexOf('alice reply 1'));
    expect(carol.indexOf('alice reply 1')).toBeLessThan(carol.indexOf('bob reply 1 DONE later'));
    expect(carol.indexOf('bob reply 1 DONE later')).toBeLessThan(carol.lastIndexOf('and bring cake'));
    expect(r2.teamState).toMatchObject({ threadId: first.workflowId, threadUsage: { runs: 2 } });
    expect(r2.teamState!.threadUsage.totalTokens).toBe(r1.usage.totalTokens + r2.usage.totalTokens);

    const thread = await listRuns(h.client, { thread: first.workflowId });
    expect(thread.runs.map((r) => r.workflowId)).toEqual([first.workflowId, `${first.workflowId}/2`]);

    const exported = await exportTeamState(h.client, second.workflowId);
    expect(exported.state).toEqual(r2.teamState);
  });

  test('a continue with other agents is refused before anything starts, naming the missing and the extra agents', async () => {
    const graph = compileYaml(PANEL);
    const first = await h.start(graph, { task: 'plan', workflowId: uniqueWorkflowId('panel') });
    await first.result();
    const renamed = compileYaml(PANEL.replace(/carol/g, 'carl'));
    const err = await startRun(h.client, { role: renamed, task: 'x', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContinueRefusedError);
    expect((err as ContinueRefusedError).problems.join('\n')).toMatch(/no agent "carol".*\n.*"carl" is not in the team state \(did you mean "carol"\?\)/);
    const thread = await listRuns(h.client, { thread: first.workflowId });
    expect(thread.runs).toHaveLength(1);
  });

  test("a round-robin continued midway is not cut short by the loop cap its max_messages implies: the lap from the cursor is not counted", async () => {
    // max_messages: 3 alone implies a cap of one iteration, reached at carol -> alice; from carol it would end after one message
    const graph = compileYaml(PANEL.replace('  max_iterations: 5\n', '').replace('      - max_messages: 4\n', '      - max_messages: 3\n'));
    expect(graph.maxIterations).toBe(1);
    h.stub.script('bob', [{ text: 'bob says DONE' }, {}]);
    const first = await h.start(graph, { task: 'plan', workflowId: uniqueWorkflowId('panel') });
    expect(await first.result()).toMatchObject({ reason: 'text_mention', steps: 2 });
    const second = await startRun(h.client, { role: graph, task: 'go on', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue });
    const r = await second.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 3, iterations: { 'alice,bob,carol': 0 } });
    // with max_iterations: 1, carol's lead-in and one whole lap from alice, then the cap ends it
    const third = await startRun(h.client, { role: compileYaml(PANEL.replace('max_iterations: 5', 'max_iterations: 1').replace('max_messages: 4', 'max_messages: 9')), task: 'more', continueFrom: second.workflowId, taskQueue: h.worker.taskQueue });
    const r3 = await third.result();
    expect(r3).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 4, iterations: { 'alice,bob,carol': 1 } });
  });
});
