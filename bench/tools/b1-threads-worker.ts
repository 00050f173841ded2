/**
 * Child-process entry of `b1-threads.ts` (bench-only): one worker alone in its process, started
 * from a prebuilt bundle file. Kinds: `troupe` (createWorker as the bench runs it: streaming on),
 * `troupe-nostream` (the same with `TROUPE_STREAM=off`), `floor` (the floor workflow and activities,
 * replaying the recorded requests in the file given). Sends `{ ready, pid }` once it polls.
 */
import * as fs from 'node:fs';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createWorker } from '../../src/worker';
import { createFloorActivities } from '../floor/activities';
import { installRuntime } from '../lib/stack';
import type { RecordedRequest } from '../lib/stub-client';

/** The worker kinds this entry starts. */
export type ThreadsWorkerKind = 'troupe' | 'troupe-nostream' | 'floor';

async function main(): Promise<void> {
  const [kind, address, namespace, taskQueue, stubUrl, bundleFile, requestsFile] = process.argv.slice(2) as [ThreadsWorkerKind, ...string[]];
  installRuntime();
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = JSON.parse(fs.readFileSync(bundleFile, 'utf8')) as WorkflowBundleWithSourceMap;
  const requests = JSON.parse(fs.readFileSync(requestsFile, 'utf8')) as RecordedRequest[];
  const worker =
    kind === 'floor'
      ? await Worker.create({
          connection,
          namespace,
          taskQueue,
          workflowBundle,
          activities: createFloorActivities(stubUrl, () => requests),
          maxHeartbeatThrottleInterval: '500ms',
          defaultHeartbeatThrottleInterval: '500ms',
        })
      : await createWorker({ address, namespace, taskQueue, connection, workflowBundle, llm: { baseUrl: stubUrl, apiKey: 'bench-key', env: kind === 'troupe-nostream' ? { TROUPE_STREAM: 'off' } : {} } });
  const running = worker.run();
  process.send?.({ ready: true, pid: process.pid });
  process.on('disconnect', () => {
    worker.shutdown();
    void running.finally(() => process.exit(0));
  });
}

void main();
