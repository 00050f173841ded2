/**
 * `troupe worker` stops on SIGTERM the way a deployment needs (a real worker process, the stub
 * holding a model call): it stops polling, lets the call in flight finish within
 * TROUPE_SHUTDOWN_GRACE_MS and exits 0; past the grace it cancels the call, which a new worker
 * retries; a second SIGTERM exits at once.
 */
import { once } from 'node:events';
import { CLI_WORKER_STOP_TEXTS, SIGNAL_EXIT_CODES } from '../../src/cli/worker';
import { startRun } from '../../src/client';
import { compileYaml } from '../helpers/compile';
import { stubGate } from '../helpers/stub-llm';
import { processWorkerSuite, startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { testAddress, uniqueTaskQueue } from '../helpers/temporal';

const solo = (agent: string) =>
  compileYaml(`
name: drain-${agent}
agents:
  ${agent}: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [${agent}]
`);

describe('troupe worker on SIGTERM', () => {
  const suite = processWorkerSuite();

  /** `troupe worker` on `queue` against the stub, with a shutdown grace. */
  async function spawnWithGrace(queue: string, graceMs: number): Promise<WorkerProcess & { exit: Promise<{ code: number | null; at: number }> }> {
    const w = await startWorkerProcess({
      TEMPORAL_ADDRESS: testAddress(),
      TROUPE_TASK_QUEUE: queue,
      OPENAI_BASE_URL: suite.stub.url,
      OPENAI_API_KEY: 'test-key',
      TROUPE_SHUTDOWN_GRACE_MS: String(graceMs),
    });
    suite.workers.push(w);
    const exit = once(w.child, 'exit').then(([code]) => ({ code: code as number | null, at: Date.now() }));
    return Object.assign(w, { exit });
  }

  const sigterm = (w: WorkerProcess) => process.kill(w.child.pid!, 'SIGTERM');
  const waitForOutput = (w: WorkerProcess, text: string) =>
    suite.stub.waitFor(() => w.output().includes(text), { timeoutMs: 15_000, message: `worker never printed: ${text}\n${w.output()}` });

  beforeEach(() => suite.stub.reset());

  test('drains: stops polling, lets the held call finish, exits 0; the call is not sent again', async () => {
    const { stub, tc } = suite;
    const queue = uniqueTaskQueue('drain');
    const gate = stubGate();
    stub.script('writer', [gate.hold({ text: 'finished during the drain' })]);
    const worker = await spawnWithGrace(queue, 60_000);
    const first = await startRun(tc.client, { role: solo('writer'), task: 'essay', taskQueue: queue });
    await stub.waitForRequests(1, 'writer');

    sigterm(worker);
    await waitForOutput(worker, CLI_WORKER_STOP_TEXTS.draining(60_000));
    // no longer polling: a run started now is not picked up by the draining worker
    const late = await startRun(tc.client, { role: solo('latecomer'), task: 'essay', taskQueue: queue });
    await new Promise((r) => setTimeout(r, 1500));
    expect(stub.hits('latecomer')).toBe(0);
    expect(worker.child.exitCode).toBeNull();
    expect(stub.requestsFor('writer')[0].aborted).toBe(false);

    gate.open();
    expect((await worker.exit).code).toBe(0);
    expect(worker.output()).toContain(CLI_WORKER_STOP_TEXTS.stopped);
    expect(stub.requestsFor('writer')[0]).toMatchObject({ aborted: false, status: 200 });

    await suite.spawn(queue);
    expect(await first.result()).toMatchObject({ status: 'completed', finalText: 'finished during the drain' });
    expect(await late.result()).toMatchObject({ status: 'completed' });
    // the drained call's result was kept: it was not sent again
    expect(stub.hits('writer')).toBe(1);
  }, 120_000);

  test('past the grace the held call is cancelled, the worker exits 0, and a new worker retries the call', async () => {
    const { stub, tc } = suite;
    const queue = uniqueTaskQueue('grace');
    const gate = stubGate();
    stub.script('writer', [gate.hold({ text: 'never sent' }), { text: 'sent by the next worker' }]);
    const worker = await spawnWithGrace(queue, 1_000);
    const handle = await startRun(tc.client, { role: solo('writer'), task: 'essay', taskQueue: queue });
    await stub.waitForRequests(1, 'writer');

    const signalledAt = Date.now();
    sigterm(worker);
    const { code, at } = await worker.exit;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeGreaterThanOrEqual(1_000);
    expect(at - signalledAt).toBeLessThan(10_000);
    await stub.waitFor(() => stub.requestsFor('writer')[0].aborted, { message: 'the held call was not cancelled' });

    await suite.spawn(queue);
    expect(await handle.result()).toMatchObject({ status: 'completed', finalText: 'sent by the next worker' });
    expect(stub.hits('writer')).toBe(2);
    gate.open();
  }, 120_000);

  test('a second SIGTERM exits at once, without waiting for the call in flight', async () => {
    const { stub, tc } = suite;
    const queue = uniqueTaskQueue('twice');
    const gate = stubGate();
    stub.script('writer', [gate.hold({ text: 'held' })]);
    const worker = await spawnWithGrace(queue, 60_000);
    await startRun(tc.client, { role: solo('writer'), task: 'essay', taskQueue: queue });
    await stub.waitForRequests(1, 'writer');

    sigterm(worker);
    await waitForOutput(worker, CLI_WORKER_STOP_TEXTS.draining(60_000));
    const signalledAt = Date.now();
    sigterm(worker);
    const { code, at } = await worker.exit;
    expect(code).toBe(SIGNAL_EXIT_CODES.SIGTERM);
    expect(at - signalledAt).toBeLessThan(3_000);
    expect(worker.output()).toContain(CLI_WORKER_STOP_TEXTS.exitNow('SIGTERM'));
    await stub.waitFor(() => stub.requestsFor('writer')[0].aborted, { message: 'the call of the exited worker stayed open' });
    gate.open();
  }, 120_000);
});
