/**
 * Usage an endpoint reports is taken only as whole token counts within the bound of one call
 * (docs/semantics.md, "Bounds on hostile input"): negative counts, strings, objects, `null`, `1e308`
 * and a total below its parts are estimated from the call's characters, as a stream without usage
 * is, with a warning naming the endpoint. The run ends as it would have (it never wedges on a
 * workflow task that throws recording a metric), its status query answers, its cost and tokens are
 * finite, a token budget still trips, and a worker serving `--metrics` exports no NaN.
 */
import { startRun } from '../../src/client';
import { freePort } from '../../src/dev/temporal-server';
import { TROUPE_METRICS } from '../../src/core/observe/metric-catalogue';
import { statusQuery } from '../../src/contract';
import type { RunResult } from '../../src/core/ending/result';
import { compileYaml, startHarness, type Harness } from '../helpers/runs';
import { scrape, sumOf } from '../helpers/prometheus';
import { connectClient, testAddress, uniqueTaskQueue, uniqueWorkflowId, type TestClient } from '../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { resultUnlessWedged } from '../helpers/wedge';
import { shownUrl } from '../../src/activities/endpoints';
import { ACTIVITY_TEXTS } from '../../src/activities/texts';
import { REPORTED_USAGE_TEXTS as WHY } from '../../src/core/llm/reported-usage';

const ROLE = `
name: nonsense-usage
pricing:
  priced-model: { input: 2, output: 8 }
model: { name: priced-model }
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

const BUDGETED = `
name: nonsense-usage-budget
pricing:
  priced-model: { input: 2, output: 8 }
model: { name: priced-model }
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 50
budget:
  max_total_tokens: 200
`;

/** The run's warnings hold the one that says the writer's usage from `url` was not taken, and why. */
function expectWarned(r: RunResult, url: string, why?: string): void {
  const text = why === undefined ? ACTIVITY_TEXTS.llm.usageAbsent('agent', 'writer', shownUrl(url)) : ACTIVITY_TEXTS.llm.usageNonsense('agent', 'writer', shownUrl(url), why);
  expect(r.warnings).toContain(text);
}

/** A finished run's usage is whole, finite and estimated from the call (positive). */
function expectEstimated(r: RunResult): void {
  expect(r.usage.promptTokens).toBeGreaterThan(0);
  expect(r.usage.completionTokens).toBeGreaterThan(0);
  expect(r.usage.promptTokens).toBeLessThan(10_000);
  expect(r.usage.totalTokens).toBe(r.usage.promptTokens + r.usage.completionTokens);
  expect(Number.isFinite(r.usage.costUsd)).toBe(true);
  expect(r.usage.costUsd).toBeGreaterThan(0);
}

describe('usage an endpoint reports as nonsense (a streaming worker)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test.each([
    ['negative counts', { prompt_tokens: -1_000_000, completion_tokens: -5 }, WHY.notCount('prompt_tokens', '-1000000')],
    ['NaN-like values', { prompt_tokens: '00NaN', completion_tokens: {}, total_tokens: null }, WHY.notCount('prompt_tokens', '"00NaN"')],
    ['counts past any context window', { prompt_tokens: 1e308, completion_tokens: 1e308, total_tokens: 1e308 }, WHY.overBound('prompt_tokens', '1e+308', 10_000_000)],
    ['a total below its parts', { prompt_tokens: 400, completion_tokens: 100, total_tokens: 3 }, WHY.totalBelow(3, 500)],
    ['a string for the whole usage', '00NaN', WHY.notObject('"00NaN"')],
    ['an object in a count', { prompt_tokens: 10, completion_tokens: { n: 1 } }, WHY.notCount('completion_tokens', '{"n":1}')],
  ])('%s: the run ends normally with estimated usage and a warning naming the endpoint', async (_, rawUsage, why) => {
    h.stub.script('writer', [{ text: 'the essay', rawUsage }]);
    const handle = await h.start(ROLE);
    const r = await resultUnlessWedged(handle);
    expect(r).toMatchObject({ status: 'completed', finalText: 'the essay' });
    expectEstimated(r);
    expectWarned(r, h.stub.url, why);
    expect(h.stub.requestsFor('writer').at(-1)?.streamed).toBe(true);
    // the run answers its status query with the same figures
    const status = await handle.query(statusQuery);
    expect(status.usage).toMatchObject({ promptTokens: r.usage.promptTokens, totalTokens: r.usage.totalTokens, costUsd: r.usage.costUsd });
  });

  test('a token budget still trips on the estimated usage', async () => {
    h.stub.script('writer', [{ text: 'a draft', rawUsage: { prompt_tokens: -1_000_000, completion_tokens: -5 } }]);
    h.stub.script('critic', [{ text: 'a critique', rawUsage: { prompt_tokens: '00NaN', completion_tokens: 1e308 } }]);
    const r = await resultUnlessWedged(await h.start(BUDGETED));
    expect(r).toMatchObject({ status: 'budget_exceeded', reason: 'token_budget_exceeded' });
    expect(r.usage.totalTokens).toBeGreaterThanOrEqual(200);
    expect(r.usage.agentCalls).toBeLessThan(50);
  });
});

describe('usage an endpoint reports as nonsense (a worker with --metrics, not streaming)', () => {
  let h: Harness;
  let tc: TestClient;
  let worker: WorkerProcess | undefined;
  beforeAll(async () => {
    // the stub of a harness; its own worker is not used
    [h, tc] = await Promise.all([startHarness(), connectClient()]);
  });
  afterAll(async () => {
    await worker?.kill();
    await tc?.close();
    await h?.close();
  });

  test('whole replies with null, string or negative usage: the runs end, and the scrape has no NaN', async () => {
    const queue = uniqueTaskQueue('nonsense-usage');
    const address = `127.0.0.1:${await freePort()}`;
    worker = await startWorkerProcess(
      { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: queue, OPENAI_BASE_URL: h.stub.url, OPENAI_API_KEY: 'test-key', TROUPE_STREAM: 'off' },
      60_000,
      ['--metrics', address],
    );
    const results: RunResult[] = [];
    const cases: Array<[unknown, string | undefined]> = [
      [null, undefined],
      ['00NaN', WHY.notObject('"00NaN"')],
      [{ prompt_tokens: -1_000_000, completion_tokens: -5 }, WHY.notCount('prompt_tokens', '-1000000')],
    ];
    for (const [rawUsage, why] of cases) {
      h.stub.script('writer', [{ text: 'the essay', rawUsage }]);
      const handle = await startRun(tc.client, { role: compileYaml(ROLE), task: 'an essay', taskQueue: queue, workflowId: uniqueWorkflowId('nonsense-usage') });
      const r = await resultUnlessWedged(handle);
      expect(r).toMatchObject({ status: 'completed', finalText: 'the essay' });
      expectEstimated(r);
      expectWarned(r, h.stub.url, why);
      results.push(r);
    }
    expect(h.stub.requestsFor('writer').every((req) => !req.streamed)).toBe(true);
    const samples = await scrape(`http://${address}/metrics`);
    const troupe = samples.filter((s) => s.name.startsWith('troupe_'));
    expect(troupe.filter((s) => !Number.isFinite(s.value))).toEqual([]);
    const tags = { agent: 'writer', model: 'priced-model', kind: 'agent', taskQueue: queue };
    expect(sumOf(samples, TROUPE_METRICS.tokens.name, { ...tags, type: 'input' })).toBe(results.reduce((n, r) => n + r.usage.promptTokens, 0));
    expect(sumOf(samples, `${TROUPE_METRICS.cost.name}_sum`, tags)).toBeCloseTo(results.reduce((n, r) => n + r.usage.costUsd, 0), 12);
  }, 120_000);
});
