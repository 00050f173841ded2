/**
 * A side effect happens once even when the worker dies: the worker (its own process, with a tools
 * file) is SIGKILLed after a side-effecting tool call completed and while the next model call is in
 * flight. After a new worker starts, the run completes and the counter file holds one line: the
 * completed tool call was never run again, only the interrupted model call was.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WORKFLOW_TYPE } from '../../src/contract';
import { compileYaml } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';
import { uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';
import { SERVER_TOOLS } from '../helpers/tools';
import { processWorkerSuite } from '../helpers/worker-process';

describe('a worker killed between a tool call and the next model call', () => {
  const suite = processWorkerSuite();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-once-')));
  const toolsFile = path.join(dir, 'tools.yaml');
  fs.writeFileSync(toolsFile, `modules: [${JSON.stringify(SERVER_TOOLS)}]\n`);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('SIGKILL, restart: the run completes and the side effect happened exactly once', async () => {
    const { stub } = suite;
    const counter = path.join(dir, 'counter.txt');
    const queue = uniqueTaskQueue('once');
    const gate = stubGate();
    stub.script('bookkeeper', [
      { toolCalls: [{ name: 'append_line', arguments: { file: counter, line: 'charged' } }] },
      gate.hold({ text: 'charged the customer once' }),
    ]);
    const first = await suite.spawn(queue, ['--tools', toolsFile]);
    const handle = await suite.tc.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: queue,
      workflowId: uniqueWorkflowId('once'),
      args: [{ graph: compileYaml(`
name: once
agents:
  bookkeeper: { instructions: "Charge once.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [bookkeeper]
`), task: 'charge' }],
    });
    await stub.waitFor(() => stub.requestsFor('bookkeeper').length === 2, { timeoutMs: 30_000 });
    expect(fs.readFileSync(counter, 'utf8')).toBe('charged\n');
    const interrupted = stub.requestsFor('bookkeeper')[1];
    await first.kill();
    await stub.waitFor(() => interrupted.aborted, { message: "the killed worker's model request was not closed" });
    gate.open();
    await suite.spawn(queue, ['--tools', toolsFile]);

    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'charged the customer once' });
    expect(fs.readFileSync(counter, 'utf8')).toBe('charged\n');
    expect(r.usage.toolCalls?.total).toBe(1);
    expect(stub.hits('bookkeeper')).toBe(3);
  }, 120_000);

  test('SIGKILL during a tool call: the call is tried again with the same idempotency key', async () => {
    const { stub } = suite;
    const keys = path.join(dir, 'keys.txt');
    const queue = uniqueTaskQueue('retry-key');
    stub.script('payer', [{ toolCalls: [{ name: 'record_key', arguments: { file: keys } }] }, { text: 'paid' }]);
    const first = await suite.spawn(queue, ['--tools', toolsFile]);
    const workflowId = uniqueWorkflowId('retry-key');
    const handle = await suite.tc.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: queue,
      workflowId,
      args: [{ graph: compileYaml(`
name: retry-key
agents:
  payer: { instructions: "Pay.", tools: [record_key] }
collaboration:
  topology: pipeline
  agents: [payer]
`), task: 'pay' }],
    });
    await stub.waitFor(() => fs.existsSync(keys), { timeoutMs: 30_000, message: 'the tool never started' });
    await first.kill();
    await suite.spawn(queue, ['--tools', toolsFile]);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'paid' });
    const lines = fs.readFileSync(keys, 'utf8').trim().split('\n').map((l) => l.split(' '));
    expect(lines.map(([attempt]) => attempt)).toEqual(['1', '2']);
    expect(lines[0][1]).toBe(lines[1][1]);
    expect(lines[0][1]).toMatch(new RegExp(`^${workflowId}/[0-9a-f-]+/\\d+$`));
  }, 120_000);
});
