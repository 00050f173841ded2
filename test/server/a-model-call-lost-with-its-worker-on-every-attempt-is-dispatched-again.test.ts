/**
 * Lost workers do not use up a model call's retries. The worker (its own process) is SIGKILLed while
 * the writer's call is in flight, on each of the call's 3 attempts: every attempt ends in a heartbeat
 * timeout, which says the worker was lost, not that the model failed. The run dispatches the call
 * again as a new activity (with a warning) instead of failing with `activity_failed`, and completes.
 */
import { startRun } from '../../src/client';
import { compileYaml } from '../helpers/runs';
import { uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';
import { processWorkerSuite } from '../helpers/worker-process';

describe('a model call lost with its worker on every attempt', () => {
  const suite = processWorkerSuite();

  test('is dispatched again once its 3 attempts are lost, and the run completes', async () => {
    const { stub } = suite;
    const queue = uniqueTaskQueue('lost');
    let firstCall: string | undefined;
    // the first call's attempts hang until their worker dies; any later call answers
    stub.respond((req) => {
      firstCall ??= req.callId;
      return req.callId === firstCall ? { hang: true } : { text: 'written at last' };
    });
    let worker = await suite.spawn(queue);
    const handle = await startRun(suite.tc.client, {
      role: compileYaml(`
name: lost
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`),
      task: 'write',
      taskQueue: queue,
      workflowId: uniqueWorkflowId('lost'),
    });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await stub.waitFor(() => stub.requests.some((r) => r.callId === firstCall && r.attempt === attempt && !r.aborted), {
        timeoutMs: 60_000,
        message: `attempt ${attempt} of the first call never arrived`,
      });
      await worker.kill();
      worker = await suite.spawn(queue);
    }
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'written at last', steps: 1 });
    expect(r.usage.agentCalls).toBe(1);
    expect(r.warnings).toEqual([
      'writer · round 1 · wave 1: every attempt was lost with its worker (no heartbeat); dispatched again (1 of 3)',
    ]);
    const calls = new Set(stub.requests.map((q) => q.callId));
    expect(calls.size).toBe(2);
    expect(stub.requests.filter((q) => q.callId === firstCall).map((q) => q.attempt)).toEqual([1, 2, 3]);
  }, 240_000);
});
