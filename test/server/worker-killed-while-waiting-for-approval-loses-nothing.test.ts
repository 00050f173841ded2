import { compileYaml, waitForStatus } from '../helpers/runs';
import { troupe } from '../helpers/cli';
import { uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';
import { processWorkerSuite } from '../helpers/worker-process';
import { WORKFLOW_TYPE } from '../../src/contract';

describe('durable approvals', () => {
  const suite = processWorkerSuite();

  test('the worker dies while a run waits for approval; a new worker and the approval complete the run', async () => {
    const { stub, tc } = suite;
    const queue = uniqueTaskQueue('approve');
    stub.script('writer', [{ text: 'the final answer' }]);
    const first = await suite.spawn(queue);
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
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(waiting.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'before_exit', agent: 'writer' })]);
    await first.kill();
    // the approval is sent while no worker runs: Temporal keeps it
    expect((await troupe('signal', handle.workflowId, 'note')).code).toBe(0);
    await tc.client.workflow.getHandle(handle.workflowId).signal('approve', { requestId: 'r1', digest: waiting.pending[0].digest });
    await suite.spawn(queue);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'the final answer' });
    expect(stub.hits('writer')).toBe(1);
    expect(r.signals).toEqual([expect.objectContaining({ type: 'note' })]);
  }, 120_000);
});
