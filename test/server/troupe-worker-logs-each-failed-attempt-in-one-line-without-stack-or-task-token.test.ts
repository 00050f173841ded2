/**
 * A real `troupe worker` process logs each failed attempt of a model call in one line (time, level,
 * activity type, attempt, workflow, the error's message) where the SDK's own format printed ~35 lines
 * with a stack trace and the attempt's task token.
 */
import { startRun } from '../../src/client';
import { compileYaml } from '../helpers/compile';
import { uniqueTaskQueue } from '../helpers/temporal';
import { processWorkerSuite } from '../helpers/worker-process';

const SOLO = compileYaml(`
name: log-lines
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

describe('troupe worker log', () => {
  const suite = processWorkerSuite();

  test('three failed attempts are three lines, with no stack and no task token', async () => {
    const queue = uniqueTaskQueue('log-lines');
    const worker = await suite.spawn(queue);
    suite.stub.script('writer', [{ status: 500, errorMessage: 'upstream exploded' }]);
    const handle = await startRun(suite.tc.client, { role: SOLO, task: 'write', taskQueue: queue });
    expect(await handle.result()).toMatchObject({ status: 'failed', reason: 'activity_failed' });

    const id = handle.workflowId;
    const failed = worker.output().split('\n').filter((l) => l.includes('activity callAgent failed'));
    expect(failed).toHaveLength(3);
    failed.forEach((line, i) =>
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d WARN activity callAgent failed \\(attempt ${i + 1}, workflow ${id}\\): agent writer: HTTP 500 upstream exploded`)),
    );
    expect(worker.output()).not.toMatch(/taskToken|\n\s+at |ApplicationFailure/);
  });
});
