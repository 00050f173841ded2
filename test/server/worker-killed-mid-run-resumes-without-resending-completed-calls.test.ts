import type { Client } from '@temporalio/client';
import { compileYaml } from '../helpers/runs';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, testAddress, uniqueTaskQueue, uniqueWorkflowId, type TestClient } from '../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { WORKFLOW_TYPE } from '../../src/workflows/definitions';

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
  let stub: StubLlm;
  let tc: TestClient;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    stub = await startStubLlm();
    tc = await connectClient();
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await tc?.close();
    await stub?.close();
  });

  test('SIGKILL mid-run, restart: same result, no completed agent call sent again', async () => {
    const queue = uniqueTaskQueue('crash');
    const env = {
      TEMPORAL_ADDRESS: testAddress(),
      TROUPE_TASK_QUEUE: queue,
      OPENAI_BASE_URL: stub.url,
      OPENAI_API_KEY: 'test-key',
    };
    stub.script('writer', [{ text: 'draft 1' }, { text: 'draft 2' }]);
    stub.script('critic', [{ text: 'weak. score: 50' }, { text: 'great. score: 90', delayMs: 4000 }]);
    workers.push(await startWorkerProcess(env));

    const client: Client = tc.client;
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: queue,
      workflowId: uniqueWorkflowId('crash'),
      args: [{ graph: compileYaml(LOOP), task: 'essay' }],
    });
    // the critic's second call is in flight: kill the worker like a crash would
    await stub.waitFor(() => stub.requestsFor('critic').length === 2, { timeoutMs: 30_000 });
    await workers[0].kill();
    workers.push(await startWorkerProcess(env));

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
