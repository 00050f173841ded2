/**
 * The compose worker's health check (deploy/worker-healthcheck.js), run as the container runs it
 * (`node deploy/worker-healthcheck.js` with the worker's environment): healthy while a `troupe
 * worker` of this host polls the task queue, unhealthy for a queue nobody polls or an unreachable
 * server.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { uniqueTaskQueue, testAddress } from '../helpers/temporal';
import { processWorkerSuite } from '../helpers/worker-process';

const SCRIPT = path.resolve(__dirname, '..', '..', 'deploy', 'worker-healthcheck.js');

function healthcheck(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, timeout: 30_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('worker health check', () => {
  const suite = processWorkerSuite();

  test('exit 0 while this host’s worker polls; 1 for an unpolled queue or an unreachable server', async () => {
    const queue = uniqueTaskQueue('health');
    await suite.spawn(queue);
    expect(await healthcheck({ TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: queue })).toEqual({ code: 0, stderr: '' });

    const idle = uniqueTaskQueue('idle');
    const unpolled = await healthcheck({ TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: idle });
    expect(unpolled.code).toBe(1);
    expect(unpolled.stderr).toContain(`polls task queue "${idle}"`);

    const unreachable = await healthcheck({ TEMPORAL_ADDRESS: '127.0.0.1:1', TROUPE_TASK_QUEUE: queue });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
  }, 120_000);
});
