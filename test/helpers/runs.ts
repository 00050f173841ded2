/**
 * Harness for troupe run tests: a real worker (troupe workflow + real LLM activities) on a unique
 * task queue, a real HTTP stub LLM, and a client to start and observe runs of YAML configs.
 */
import type { Client, WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { createActivities, type LlmEndpointOptions } from '../../src/activities';
import type { ToolRegistry } from '../../src/tools';
import { compileYaml } from './compile';
import type { CompiledGraph } from '../../src/core/graph/types';
import type { RunResult, RunStatusView } from '../../src/core/ending/result';
import { decideRequest, startRun, type DecisionAnswer, type RunHandle } from '../../src/client';
import { statusQuery } from '../../src/contract';
import type { troupeRun } from '../../src/workflows/run';
import { startStubLlm, type StubLlm } from './stub-llm';
import { connectClient, installQuietRuntime, startWorker, uniqueWorkflowId, type RunningWorker, type TestClient } from './temporal';

export { compileYaml };

export interface Harness {
  stub: StubLlm;
  client: Client;
  worker: RunningWorker;
  /** Start a run of `yaml` (or a compiled graph). */
  start(config: string | CompiledGraph, opts?: { task?: string; workflowId?: string }): Promise<WorkflowHandleWithFirstExecutionRunId<typeof troupeRun>>;
  /** Start a run and wait for its RunResult. */
  run(config: string | CompiledGraph, opts?: { task?: string; workflowId?: string }): Promise<RunResult>;
  /** Restart the worker (same task queue), e.g. after killing it. */
  restartWorker(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  workerOptions?: Partial<WorkerOptions>;
  address?: string;
  /** Endpoint options of the activities, over the default (the stub, key `test-key`, an empty env). */
  llm?: LlmEndpointOptions;
  /** The worker's tools (a registry opened from a tools file). */
  tools?: ToolRegistry;
}

/** Start stub + worker + client. Call `close()` in afterAll. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  installQuietRuntime();
  const stub = await startStubLlm();
  const activities = createActivities({ baseUrl: stub.url, apiKey: 'test-key', env: {}, ...opts.llm, ...(opts.tools ? { tools: opts.tools } : {}) });
  const workerOptions: Partial<WorkerOptions> = { defaultHeartbeatThrottleInterval: '500ms', ...opts.workerOptions };
  let worker = await startWorker({ activities, workerOptions, address: opts.address });
  const tc: TestClient = await connectClient(opts.address);
  const harness: Harness = {
    stub,
    client: tc.client,
    get worker() {
      return worker;
    },
    async start(config, o = {}) {
      const graph = typeof config === 'string' ? compileYaml(config) : config;
      // the library's own start: the run's UI summary and details, its memo and search attributes
      return startRun(tc.client, {
        role: graph,
        task: o.task ?? graph.task ?? 'test task',
        taskQueue: worker.taskQueue,
        workflowId: o.workflowId ?? uniqueWorkflowId(graph.name),
      });
    },
    async run(config, o = {}) {
      const handle = await harness.start(config, o);
      return handle.result();
    },
    async restartWorker() {
      await worker.stop().catch(() => undefined);
      worker = await startWorker({ activities, workerOptions, taskQueue: worker.taskQueue, address: opts.address });
    },
    async close() {
      await worker.stop().catch(() => undefined);
      await tc.close();
      await stub.close();
    },
  } as Harness;
  return harness;
}

/** Poll the `status` query until `pred` holds (default 20 s). */
export async function waitForStatus(
  handle: WorkflowHandle,
  pred: (s: RunStatusView) => boolean,
  timeoutMs = 20_000,
): Promise<RunStatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: RunStatusView | undefined;
  while (Date.now() < deadline) {
    try {
      last = await handle.query(statusQuery);
      if (pred(last)) return last;
    } catch {
      // the workflow may not have run its first task yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`status did not reach the expected state; last: ${JSON.stringify(last)}`);
}

/**
 * Decide the run's pending request (`requestId`, or the only one) as a human who saw it: with the
 * digest a gate shows (docs/semantics.md, "Humans in the loop"); the run's answer.
 */
export async function decidePending(
  handle: WorkflowHandle,
  decision: Parameters<typeof decideRequest>[2],
  requestId?: string,
): Promise<DecisionAnswer> {
  const status: RunStatusView = await handle.query(statusQuery);
  const request = requestId === undefined ? status.pending[0] : status.pending.find((p) => p.id === requestId);
  if (!request || (requestId === undefined && status.pending.length !== 1)) throw new Error(`no single pending request to decide: ${JSON.stringify(status.pending)}`);
  return decideRequest(handle as RunHandle, request, decision);
}
