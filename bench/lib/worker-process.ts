/**
 * Child-process entry for B6, B14 and B16: one worker alone in its process — troupe's production worker
 * (`createWorker`) or the floor's — started from a prebuilt bundle file, so its memory and start
 * time are measured apart from the benchmark process. Answers `memory` over IPC after two forced
 * garbage collections (the child runs with --expose-gc).
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createWorker } from '../../src/worker';
import { createFloorActivities } from '../floor/activities';
import { installRuntime } from './stack';
import { memoryMiB } from './proc';
import type { RecordedRequest } from './stub-client';

/** A command the parent sends. */
export type WorkerCommand = { id: number; op: 'memory' };

/** Memory of the worker process after forced GC, in MiB. */
export interface WorkerMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

/** The first message the child sends once its worker polls. */
export interface WorkerReady {
  ready: true;
  pid: number;
  /** Process start → worker running (ms), and Worker.create alone (ms). */
  startMs: number;
  createMs: number;
}

/** The request a floor worker sends when it is given no recorded requests (B6's parked runs). */
const ONE_REQUEST: RecordedRequest[] = [{ agent: 'floor', body: { model: 'stub-model', messages: [{ role: 'user', content: 'hi' }] } }];

/**
 * Arguments: kind (`troupe` | `floor`), server address, namespace, task queue, stub URL, bundle file
 * (JSON: code and source map), and for a floor worker optionally a file of recorded requests (JSON) it replays (B16).
 */
async function main(): Promise<void> {
  const [kind, address, namespace, taskQueue, stubUrl, bundleFile, requestsFile] = process.argv.slice(2);
  const requests = requestsFile ? (JSON.parse(fs.readFileSync(requestsFile, 'utf8')) as RecordedRequest[]) : ONE_REQUEST;
  installRuntime();
  const t0 = performance.now();
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = JSON.parse(fs.readFileSync(bundleFile, 'utf8')) as WorkflowBundleWithSourceMap;
  const worker =
    kind === 'troupe'
      ? await createWorker({ address, namespace, taskQueue, connection, workflowBundle, llm: { baseUrl: stubUrl, apiKey: 'bench-key', env: {} } })
      : await Worker.create({ connection, namespace, taskQueue, workflowBundle, activities: createFloorActivities(stubUrl, () => requests) });
  const createMs = performance.now() - t0;
  const running = worker.run();
  const ready: WorkerReady = { ready: true, pid: process.pid, startMs: performance.now(), createMs };
  process.send?.(ready);
  process.on('message', (cmd: WorkerCommand) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    const mib = (b: number) => b / 1024 / 1024;
    const memory: WorkerMemory = { rss: memoryMiB(process.pid).rss ?? mib(m.rss), heapUsed: mib(m.heapUsed), heapTotal: mib(m.heapTotal), external: mib(m.external), arrayBuffers: mib(m.arrayBuffers) };
    process.send?.({ id: cmd.id, result: memory });
  });
  process.on('disconnect', () => {
    worker.shutdown();
    void running.finally(() => process.exit(0));
  });
}

void main();
