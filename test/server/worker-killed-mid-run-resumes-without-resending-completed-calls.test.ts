import { compileYaml } from '../helpers/runs';
import { uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';
import { processWorkerSuite } from '../helpers/worker-process';
import { stubGate } from '../helpers/stub-llm';
import { WORKFLOW_TYPE } from '../../src/contract';

const LOOP = `
name: crashy
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - max_iterations: 5
`;

describe('worker crash', () => {
  const suite = processWorkerSuite();

  test('SIGKILL mid-run, restart: same result, no completed agent call sent again', async () => {
    const { stub } = suite;
    const queue = uniqueTaskQueue('crash');
    stub.script('writer', [{ text: 'draft 1' }, { text: 'draft 2' }]);
    // the critic's 2nd reply is held while the worker is killed; the new worker's retry passes the open gate
    const gate = stubGate();
    stub.script('critic', [{ text: 'weak. score: 50' }, gate.hold({ text: 'great. score: 90' })]);
    const first = await suite.spawn(queue);

    const handle = await suite.tc.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: queue,
      workflowId: uniqueWorkflowId('crash'),
      args: [{ graph: compileYaml(LOOP), task: 'essay' }],
    });
    // the critic's second call is in flight: kill the worker like a crash would
    await stub.waitFor(() => stub.requestsFor('critic').length === 2, { timeoutMs: 30_000 });
    const interrupted = stub.requestsFor('critic')[1];
    await first.kill();
    await stub.waitFor(() => interrupted.aborted, { message: 'the killed worker\'s critic request was not closed' });
    gate.open();
    await suite.spawn(queue);

    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'result_match', finalText: 'great. score: 90', steps: 4 });
    const completed = (agent: string) => stub.requestsFor(agent).filter((r) => !r.aborted && r.status === 200);
    expect(completed('writer')).toHaveLength(2);
    expect(completed('critic')).toHaveLength(2);
    expect(stub.hits('writer')).toBe(2);
    // only the interrupted call was sent again
    expect(stub.requestsFor('critic').filter((r) => r.aborted)).toHaveLength(1);
    expect(stub.hits('critic')).toBe(3);
  }, 120_000);
});
