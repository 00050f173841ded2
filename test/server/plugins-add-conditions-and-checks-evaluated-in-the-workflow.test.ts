import * as path from 'node:path';
import { createActivities } from '../../src/activities';
import { workflowEntry } from '../../src/worker';
import { compileYaml } from '../helpers/runs';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, installQuietRuntime, startWorker, uniqueWorkflowId, type RunningWorker, type TestClient } from '../helpers/temporal';
import { transcriptQuery, WORKFLOW_TYPE } from '../../src/contract';
import type { RunResult } from '../../src/core/ending/result';
import { clearCompletionChecks } from '../../src/core/checks/pipeline';
import { clearRegisteredConditions } from '../../src/core/conditions/registry';

const PLUGIN = path.resolve(__dirname, '..', 'fixtures', 'plugins', 'min-steps.ts');

describe('--plugins: custom conditions and completion checks', () => {
  let stub: StubLlm;
  let tc: TestClient;
  let worker: RunningWorker;
  beforeAll(async () => {
    installQuietRuntime();
    require(PLUGIN); // what `troupe run --plugins` does before compiling the YAML
    stub = await startStubLlm();
    tc = await connectClient();
    worker = await startWorker({
      activities: createActivities({ baseUrl: stub.url, env: {} }),
      workflowsPath: workflowEntry(PLUGIN), // what `troupe worker --plugins` bundles
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await tc?.close();
    await stub?.close();
    clearRegisteredConditions();
    clearCompletionChecks();
  });

  test('a registered condition is usable from YAML and ends the run with its own reason', async () => {
    const graph = compileYaml(`
name: plugged
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
  termination:
    any_of:
      - min_steps: 3
`);
    const r = await tc.client.workflow.execute(WORKFLOW_TYPE, {
      taskQueue: worker.taskQueue,
      workflowId: uniqueWorkflowId('plugged'),
      args: [{ graph, task: 't' }],
    });
    // min_steps ends each round after 3 results; the plugin's completion check then asks for one more
    // round (no SIGNED yet), whose min_steps is counted afresh (round-scoped, §11.1)
    expect(r).toMatchObject({ status: 'completed', reason: 'min_steps', rounds: 2, steps: 6 });
    expect(r.reasonText).toBe('min_steps: 3 steps');
    expect(stub.requestsFor('writer')[0].prompt).toContain('3 steps');
  });

  test('a registered completion check can send the final agent back once', async () => {
    stub.reset();
    const graph = compileYaml(`
name: signoff
agents:
  editor: { instructions: "Edit." }
collaboration:
  topology: pipeline
  agents: [editor]
`);
    const r = await tc.client.workflow.execute(WORKFLOW_TYPE, {
      taskQueue: worker.taskQueue,
      workflowId: uniqueWorkflowId('signoff'),
      args: [{ graph, task: 't' }],
    });
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', rounds: 2 });
    expect(stub.requestsFor('editor')[1].prompt).toContain('Add the word SIGNED when you sign off.');
  });

  test('a check that sends one final agent back alone is recorded as a check retry, not a schema retry', async () => {
    stub.reset();
    stub.script('titler', [{ text: 'no title yet SIGNED' }, { text: 'TITLE: Hello SIGNED' }]);
    const graph = compileYaml(`
name: titles
agents:
  titler: { instructions: "Title." }
collaboration:
  topology: pipeline
  agents: [titler]
`);
    const handle = await tc.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: worker.taskQueue,
      workflowId: uniqueWorkflowId('titles'),
      args: [{ graph, task: 't' }],
    });
    const r = (await handle.result()) as RunResult;
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', rounds: 1, steps: 2, finalText: 'TITLE: Hello SIGNED' });
    const steps = await handle.query(transcriptQuery);
    expect(steps.map((s) => s.kind)).toEqual(['agent', 'check_retry']);
    expect(stub.requestsFor('titler')[1].prompt).toContain('Start with a line TITLE: <title>.');
  });
});
