/**
 * The compose worker's health check (deploy/worker-healthcheck.js), run as the container runs it
 * (`node deploy/worker-healthcheck.js` with the worker's environment): healthy while a `troupe
 * worker` of this host polls the task queue, unhealthy for a queue nobody polls or an unreachable
 * server, and unhealthy once the worker died, though the server lists its poller for 5 minutes more.
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
    expect(unpolled.stderr).toContain(`polled task queue "${idle}" on ${testAddress()} in the last 120 s`);

    const unreachable = await healthcheck({ TEMPORAL_ADDRESS: '127.0.0.1:1', TROUPE_TASK_QUEUE: queue });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
  }, 120_000);

  test('a worker that died is unhealthy once its last poll is older than TROUPE_HEALTH_MAX_POLL_AGE_SECONDS', async () => {
    const queue = uniqueTaskQueue('health-died');
    const worker = await suite.spawn(queue);
    const env = { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: queue, TROUPE_HEALTH_MAX_POLL_AGE_SECONDS: '3' };
    expect((await healthcheck(env)).code).toBe(0);
    await worker.kill();
    // the server still lists the dead worker's pollers (matching.PollerHistoryTTL, 5 minutes)
    expect((await healthcheck({ ...env, TROUPE_HEALTH_MAX_POLL_AGE_SECONDS: '300' })).code).toBe(0);
    const deadline = Date.now() + 30_000;
    let last = await healthcheck(env);
    while (last.code === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      last = await healthcheck(env);
    }
    expect(last.code).toBe(1);
    expect(last.stderr).toContain(`in the last 3 s`);
  }, 120_000);
});
