/**
 * A continued run (docs/semantics.md, "Teams that go on") is a run like any other for Temporal: its
 * worker killed (SIGKILL, a separate process) while its first model call is in flight, and a new
 * worker started, it ends exactly as a continuation of the same run that nobody disturbed — the same
 * end, the same prompts, the same team state.
 */
import { startRun } from '../../src/client';
import type { RunResult } from '../../src/core/ending/result';
import { compileYaml } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';
import { uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';
import { processWorkerSuite } from '../helpers/worker-process';

const PANEL = `
name: panel
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
  carol: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [alice, bob, carol]
  termination:
    any_of:
      - text_mention: DONE
      - max_messages: 3
`;

describe('a continued run and a worker crash', () => {
  const suite = processWorkerSuite();

  test('SIGKILL during the continued run\'s first call, a new worker: the same end, prompts and team state as undisturbed', async () => {
    const { stub } = suite;
    const client = suite.tc.client;
    const queue = uniqueTaskQueue('continued-crash');
    const graph = compileYaml(PANEL);
    const first = await suite.spawn(queue);
    stub.script('alice', [{ text: 'alice: picnic at noon' }]);
    stub.script('bob', [{ text: 'bob: fine, DONE' }]);
    const source = await startRun(client, { role: graph, task: 'plan a picnic', taskQueue: queue, workflowId: uniqueWorkflowId('panel') });
    expect(await source.result()).toMatchObject({ status: 'completed', reason: 'text_mention', steps: 2 });

    // the continuation: carol (the cursor), alice, bob; carol's call is held while the worker is killed
    const gate = stubGate();
    stub.script('carol', [gate.hold({ text: 'carol: cake it is' })]);
    stub.script('alice', [{ text: 'alice: sandwiches too' }]);
    stub.script('bob', [{ text: 'bob: and lemonade' }]);
    const start = stub.requests.length;
    const crashed = await startRun(client, { role: graph, task: 'and bring cake', continueFrom: source.workflowId, taskQueue: queue });
    await stub.waitFor(() => stub.requestsFor('carol').length === 1, { timeoutMs: 30_000 });
    const interrupted = stub.requestsFor('carol')[0];
    await first.kill();
    await stub.waitFor(() => interrupted.aborted, { message: "the killed worker's carol request was not closed" });
    gate.open();
    await suite.spawn(queue);
    const afterCrash: RunResult = await crashed.result();
    const crashedCalls = stub.requests.slice(start).filter((q) => q.kind === 'agent' && !q.aborted);

    const middle = stub.requests.length;
    const undisturbed = await startRun(client, { role: graph, task: 'and bring cake', continueFrom: source.workflowId, taskQueue: queue });
    const calm: RunResult = await undisturbed.result();
    const calmCalls = stub.requests.slice(middle).filter((q) => q.kind === 'agent');

    expect(calm).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 3, finalText: 'bob: and lemonade' });
    const end = (r: RunResult) => ({ status: r.status, reason: r.reason, steps: r.steps, finalText: r.finalText, thread: r.teamState!.thread, cursor: r.teamState!.cursor, contexts: r.teamState!.contexts });
    expect(end(afterCrash)).toEqual(end(calm));
    expect(crashedCalls.map((q) => q.agent)).toEqual(['carol', 'alice', 'bob']);
    expect(crashedCalls.map((q) => q.messages)).toEqual(calmCalls.map((q) => q.messages));
    // only the interrupted call was sent again
    expect(stub.requests.slice(start, middle).filter((q) => q.aborted)).toHaveLength(1);
    expect([crashed.workflowId, undisturbed.workflowId]).toEqual([`${source.workflowId}/2`, `${source.workflowId}/3`]);
  }, 120_000);
});
