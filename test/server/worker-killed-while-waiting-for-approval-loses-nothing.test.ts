import { compileYaml } from '../helpers/runs';
import { troupe } from '../helpers/cli';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, testAddress, uniqueTaskQueue, uniqueWorkflowId, type TestClient } from '../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { statusQuery, WORKFLOW_TYPE } from '../../src/workflows/definitions';

describe('durable approvals', () => {
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

  test('the worker dies while a run waits for approval; a new worker and the approval complete the run', async () => {
    const queue = uniqueTaskQueue('approve');
    const env = { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: queue, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'k' };
    stub.script('writer', [{ text: 'the final answer' }]);
    workers.push(await startWorkerProcess(env));
    const handle = await tc.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: queue,
      workflowId: uniqueWorkflowId('approve'),
      args: [{
        graph: compileYaml(`
name: durable
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`),
        task: 'answer',
      }],
    });
    for (let i = 0; i < 100; i++) {
      const s = await handle.query(statusQuery).catch(() => undefined);
      if (s?.phase === 'awaiting_human') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await workers[0].kill();
    // the approval is sent while no worker runs: Temporal keeps it
    expect((await troupe('signal', handle.workflowId, 'note')).code).toBe(0);
    await tc.client.workflow.getHandle(handle.workflowId).signal('approve', { requestId: 'r1' });
    workers.push(await startWorkerProcess(env));
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'the final answer' });
    expect(stub.hits('writer')).toBe(1);
  }, 120_000);
});
