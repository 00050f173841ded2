/**
 * `troupe worker --metrics ADDR` (docs/observability.md, "Metrics"), a real worker process against
 * the HTTP stub, scraped over HTTP: a run whose triage agent transfers to a clerk, who calls a tool
 * and answers, and whose answer waits for a human's approval. While it waits `troupe_runs_waiting`
 * is 1 and then 0; the scrape has the Temporal SDK's series for the run and troupe's own, whose
 * tokens and cost are the RunResult's usage, per agent and in total.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../src/client';
import { freePort } from '../../src/dev/temporal-server';
import { SDK_SERIES, TROUPE_METRICS, troupeSeries } from '../../src/core/observe/metric-catalogue';
import { METRICS_TEXTS } from '../../src/telemetry/worker-metrics';
import { WAITING_POLL } from '../../src/telemetry/waiting';
import { WORKFLOW_TYPE } from '../../src/contract';
import { compileYaml, waitForStatus } from '../helpers/runs';
import { scrape, seriesNames, sumOf, type Sample } from '../helpers/prometheus';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, testAddress, uniqueTaskQueue, uniqueWorkflowId, type TestClient } from '../helpers/temporal';
import { SERVER_TOOLS } from '../helpers/tools';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const ROLE = `
name: metered
agents:
  triage: { instructions: "Route the request.", handoffs: edges, model: { name: small-model } }
  clerk: { description: Files the request, instructions: "File it.", tools: [append_line], model: { name: big-model } }
collaboration:
  flow: [parent -> triage, triage -> clerk, clerk -> parent]
approval:
  before_exit: true
pricing:
  small-model: { input: 0.5, output: 2 }
  big-model: { input: 3, output: 15 }
`;


describe('troupe worker --metrics', () => {
  let stub: StubLlm;
  let tc: TestClient;
  let worker: WorkerProcess | undefined;
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-metrics-')));
  const toolsFile = path.join(dir, 'tools.yaml');
  fs.writeFileSync(toolsFile, `modules: [${JSON.stringify(SERVER_TOOLS)}]\n`);
  beforeAll(async () => {
    stub = await startStubLlm();
    tc = await connectClient();
  });
  afterAll(async () => {
    await worker?.kill();
    await tc?.close();
    await stub?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a run with a handoff, a tool call and an approval wait shows in the scrape with its usage', async () => {
    const queue = uniqueTaskQueue('metrics');
    const address = `127.0.0.1:${await freePort()}`;
    const url = `http://${address}/metrics`;
    const filed = path.join(dir, 'filed.txt');
    stub.script('triage', [{ toolCalls: [{ name: 'transfer_to_clerk', arguments: { message: 'file it' } }], usage: { prompt_tokens: 120, completion_tokens: 9 } }]);
    stub.script('clerk', [
      { toolCalls: [{ name: 'append_line', arguments: { file: filed, line: 'filed' } }], usage: { prompt_tokens: 200, completion_tokens: 17 } },
      { text: 'filed it', usage: { prompt_tokens: 260, completion_tokens: 5 } },
    ]);
    worker = await startWorkerProcess(
      { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: queue, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'test-key', [WAITING_POLL.env]: '200' },
      60_000,
      ['--tools', toolsFile, '--metrics', address],
    );
    expect(worker.output()).toContain(METRICS_TEXTS.serving(address));
    const waitingOf = (s: Sample[]) => s.filter((x) => x.name === TROUPE_METRICS.runsWaiting.name && x.labels.taskQueue === queue).map((x) => x.value);
    // before any run: the gauge is there, and 0
    await until(url, (s) => waitingOf(s).length === 1, 'the waiting gauge never appeared');
    expect(waitingOf(await scrape(url))).toEqual([0]);

    const handle = await startRun(tc.client, { role: compileYaml(ROLE), task: 'a refund request', taskQueue: queue, workflowId: uniqueWorkflowId('metrics') });
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human', 30_000);
    expect(waiting.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'before_exit' })]);
    await until(url, (s) => waitingOf(s)[0] === 1, 'troupe_runs_waiting never went to 1 while the run waited');

    await handle.signal('approve', { requestId: 'r1', digest: waiting.pending[0].digest });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'filed it' });
    expect(fs.readFileSync(filed, 'utf8')).toBe('filed\n');
    await until(
      url,
      (x) => waitingOf(x)[0] === 0 && sumOf(x, 'temporal_workflow_completed', { task_queue: queue, workflow_type: WORKFLOW_TYPE }) === 1,
      'the scrape never showed the run completed and no run waiting',
    );

    // a workflow task that fails: a type this worker does not have
    const stray = await tc.client.workflow.start('notATroupeWorkflow', { taskQueue: queue, workflowId: uniqueWorkflowId('stray'), args: [] });
    const s = await until(url, (x) => sumOf(x, 'temporal_workflow_task_execution_failed', { task_queue: queue }) > 0, 'no failed workflow task was counted');
    await stray.terminate();

    // every series the dashboard reads (the SDK's and troupe's), for this worker's queue
    const names = seriesNames(s);
    for (const series of [...SDK_SERIES, ...troupeSeries()]) expect(names).toContain(series);
    expect(sumOf(s, 'temporal_activity_execution_latency_count', { task_queue: queue, activity_type: 'callTool' })).toBe(1);
    expect(sumOf(s, 'temporal_activity_execution_latency_count', { task_queue: queue, activity_type: 'callModel' })).toBe(2);
    expect(sumOf(s, 'temporal_activity_execution_latency_count', { task_queue: queue, activity_type: 'callAgent' })).toBe(1);

    // tokens and cost: the RunResult's usage, per agent and model, and in total
    const { tokens, cost, modelCalls, modelCallDuration, toolCalls, handoffs } = TROUPE_METRICS;
    const agents = { triage: 'small-model', clerk: 'big-model' } as const;
    for (const [agent, model] of Object.entries(agents)) {
      const used = r.usage.byAgent[agent];
      const tags = { agent, model, kind: 'agent', taskQueue: queue };
      expect(sumOf(s, tokens.name, { ...tags, type: 'input' })).toBe(used.promptTokens);
      expect(sumOf(s, tokens.name, { ...tags, type: 'output' })).toBe(used.completionTokens);
      expect(sumOf(s, `${cost.name}_sum`, tags)).toBeCloseTo(used.costUsd, 12);
      expect(sumOf(s, `${cost.name}_count`, tags)).toBe(used.calls);
    }
    expect(r.usage.byAgent.triage).toMatchObject({ promptTokens: 120, completionTokens: 9 });
    expect(r.usage.byAgent.clerk).toMatchObject({ promptTokens: 460, completionTokens: 22 });
    expect(sumOf(s, tokens.name, { type: 'input' })).toBe(r.usage.promptTokens);
    expect(sumOf(s, tokens.name, { type: 'output' })).toBe(r.usage.completionTokens);
    expect(sumOf(s, `${cost.name}_sum`)).toBeCloseTo(r.usage.costUsd, 12);
    expect(r.usage.costUsd).toBeGreaterThan(0);

    // model requests: one per chat-completions request, all ok; the histogram counts the same
    expect(sumOf(s, modelCalls.name, { agent: 'triage', model: 'small-model', kind: 'agent', outcome: 'ok', activityType: 'callAgent' })).toBe(1);
    expect(sumOf(s, modelCalls.name, { agent: 'clerk', model: 'big-model', kind: 'agent', outcome: 'ok', activityType: 'callModel' })).toBe(2);
    expect(sumOf(s, modelCalls.name)).toBe(r.usage.llmRequests);
    expect(sumOf(s, `${modelCallDuration.name}_count`)).toBe(r.usage.llmRequests);
    expect(sumOf(s, `${modelCallDuration.name}_sum`)).toBeGreaterThan(0);
    expect(sumOf(s, `${modelCallDuration.name}_bucket`, { agent: 'triage', le: '+Inf' })).toBe(1);

    // the tool call and the transfer
    expect(sumOf(s, toolCalls.name, { tool: 'append_line', outcome: 'ok' })).toBe(r.usage.toolCalls!.total);
    expect(sumOf(s, toolCalls.name)).toBe(1);
    expect(sumOf(s, handoffs.name, { from: 'triage', to: 'clerk' })).toBe(r.usage.handoffs);
    expect(sumOf(s, handoffs.name)).toBe(1);

    // no label carries the task, the texts or the key
    const labelValues = s.flatMap((x) => Object.values(x.labels));
    for (const secret of ['test-key', 'a refund request', 'file it', 'filed it']) expect(labelValues).not.toContain(secret);
  }, 120_000);

  test('a bad address stops the worker before it connects, with one line and no stack', async () => {
    const { spawnSync } = await import('node:child_process');
    const bin = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');
    for (const address of ['localhost', '127.0.0.1:70000', 'example.org:9464']) {
      const res = spawnSync(process.execPath, [bin, 'worker', '--metrics', address], {
        env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(res.status).toBe(1);
      expect(res.stderr).toContain(`--metrics/TROUPE_METRICS_ADDRESS "${address}" is not an address to serve metrics on`);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    }
    // an address in use
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const inUse = `127.0.0.1:${(taken.address() as net.AddressInfo).port}`;
    try {
      const res = spawnSync(process.execPath, [bin, 'worker', '--metrics', inUse], { env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' }, encoding: 'utf8', timeout: 60_000 });
      expect(res.status).toBe(1);
      expect(res.stderr.trim()).toMatch(new RegExp(`^troupe: cannot serve metrics on ${inUse}: .*Address already in use`));
    } finally {
      taken.close();
    }
  }, 120_000);
});

/** Scrape `url` until `pred` holds (10 s at most); the last scrape. */
async function until(url: string, pred: (s: Sample[]) => boolean, message: string): Promise<Sample[]> {
  const deadline = Date.now() + 10_000;
  let last: Sample[] = [];
  while (Date.now() < deadline) {
    last = await scrape(url);
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${message}; last scrape:\n${last.filter((s) => /^troupe_|temporal_workflow_completed/.test(s.name)).map((s) => `${s.name}${JSON.stringify(s.labels)} ${s.value}`).join('\n')}`);
}
