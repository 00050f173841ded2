/**
 * Traces (docs/observability.md, "Traces"): a two-agent run, whose writer calls a worker tool (the
 * workflow's tool loop) and which continues as new, run by a worker and a client that trace to a
 * real Jaeger over OTLP/HTTP, is read back from Jaeger's HTTP API as ONE trace: the client's root
 * span over the start, every run's `RunWorkflow` beneath it, one `invoke_agent` per dispatch, each
 * `chat` and `execute_tool` beneath its dispatch's `invoke_agent`, tokens and cost that add up to the
 * RunResult's, the run's status and reason on the root, and no secret in any span, content capture on.
 * A nested team's child run is in its parent's trace, beneath the team agent's `invoke_agent`.
 *
 * The run's histories replay on a worker that does not trace, and recorded histories of runs that
 * were not traced replay on one that does: tracing changes no command.
 *
 * The worker and the client are troupe's own (`createWorker`, `connectClient`), set up by the
 * OpenTelemetry variables as a deployment would be. The tracer providers and the context manager are
 * global to this test file's module registry (jest gives each test file its own), and are shut down
 * at its end.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { Redactor } from '../../src/secrets/redactor';
import { connectClient, followRun, startRun, type FollowEvent } from '../../src/client';
import { loadRoleFile } from '../../src/config-file';
import type { RunResult } from '../../src/core/ending/result';
import type { DevServer } from '../../src/dev/temporal-server';
import { flushTracing, openRunSpan, shutdownTracing, workerTracingPlugins } from '../../src/telemetry/tracing';
import type { ToolRegistry } from '../../src/tools';
import { bundleWorkflows, createWorker, openTools } from '../../src/worker';
import { compileYaml } from '../helpers/compile';
import { isBeneath, parentOf, startJaeger, tag, type Jaeger, type JaegerSpan, type JaegerTrace } from '../helpers/jaeger';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { installQuietRuntime, replayHistory, startDedicatedServer, uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';
import { SERVER_TOOLS } from '../helpers/tools';

/** The worker's API key: the critic's model repeats it, and no span may carry it. */
const SECRET = 'sk-trace-test-0123456789abcdef';

/** How long the set-up may wait for Jaeger's first build. */
const JAEGER_BUILD_MS = 15 * 60_000;

const OTEL_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'] as const;

const ROLE = `
name: traced-review
pricing:
  model-w: { input: 3, output: 15 }
  model-c: { input: 1, output: 2 }
agents:
  writer: { instructions: "Write, shouting the title with the shout tool first.", model: { name: model-w }, tools: [shout] }
  critic: { instructions: "Critique.", model: { name: model-c } }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
  termination:
    any_of:
      - max_iterations: 3
`;

describe('a traced run in Jaeger', () => {
  let server: DevServer;
  let jaeger: Jaeger;
  let stub: StubLlm;
  let tools: ToolRegistry;
  let dir: string;
  let worker: Worker;
  let running: Promise<void>;
  let traced: WorkflowBundleWithSourceMap;
  const taskQueue = uniqueTaskQueue('traces');
  const histories: Array<{ workflowId: string; history: unknown }> = [];
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    installQuietRuntime();
    // a history of 40 events suggests continue-as-new: a tool-loop iteration is more than that
    [server, jaeger, stub] = await Promise.all([startDedicatedServer({ 'limit.historyCount.suggestContinueAsNew': 40 }), startJaeger(), startStubLlm()]);
    for (const v of OTEL_VARIABLES) saved[v] = process.env[v];
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.otlpEndpoint;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '200';
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-traces-')));
    fs.writeFileSync(path.join(dir, 'tools.yaml'), `modules: [${JSON.stringify(SERVER_TOOLS)}]\n`);
    tools = await openTools(path.join(dir, 'tools.yaml'));
    // the bundle a tracing worker makes (its tracing workflow interceptors in), kept for the replays
    traced = await bundleWorkflows(undefined, undefined, true);
    // a first Jaeger build (scripts/get-jaeger.sh, CI's background step) may still be running: minutes
  }, JAEGER_BUILD_MS);

  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await shutdownTracing();
    await tools?.close();
    await Promise.all([stub?.close(), jaeger?.stop(), server?.stop()]);
    for (const v of OTEL_VARIABLES) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('client, workflow runs and activities form one trace with troupe GenAI spans that add up to the result', async () => {
    // the writer calls `shout` once per dispatch, then writes; the critic's first request fails
    // once (503, retried by Temporal), then it repeats the worker's key
    let criticRequests = 0;
    stub.respond((req) => {
      if (req.agent === 'critic' && ++criticRequests === 1) return { status: 503, errorMessage: 'overloaded' };
      if (req.agent === 'critic') return { text: `critique; the key is ${SECRET}`, usage: { prompt_tokens: 11, completion_tokens: 5 } };
      const last = req.messages[req.messages.length - 1];
      if (last?.role === 'tool') return { text: 'draft after shouting', usage: { prompt_tokens: 23, completion_tokens: 7 } };
      return { toolCalls: [{ name: 'shout', arguments: { text: 'title', times: 2 } }], usage: { prompt_tokens: 17, completion_tokens: 3 } };
    });
    worker = await createWorker({ address: server.address, namespace: server.namespace, taskQueue, env: false, tools, workflowBundle: traced, llm: { baseUrl: stub.url, apiKey: SECRET, env: {} } });
    running = worker.run();
    const conn = await connectClient({ address: server.address, namespace: server.namespace, taskQueue, env: false });
    const graph = compileYaml(ROLE);
    const workflowId = uniqueWorkflowId('traced');

    // as `troupe run` does: the start inside the run's root span, which ends with the run
    const root = openRunSpan(graph.name);
    const handle = await root.within(() => startRun(conn.client, { role: graph, task: 'write a title', taskQueue, workflowId }));
    const events: FollowEvent[] = [];
    let result: RunResult | undefined;
    try {
      result = await root.untraced(() => followRun(handle, (e) => events.push(e)));
    } finally {
      root.end(result && { workflowId, status: result.status, reason: result.reason });
    }
    root.end(); // a second end changes nothing
    for (const runId of runIdsOf(events)) histories.push({ workflowId, history: await conn.client.workflow.getHandle(workflowId, runId).fetchHistory() });
    await conn.close();
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 6 });
    const runIds = runIdsOf(events);
    expect(runIds.length).toBeGreaterThan(1); // it continued as new

    await flushTracing(); // both sides' providers send what they hold

    const trace = await oneTraceOf(jaeger, workflowId, runIds.length);
    const spans = trace.spans;
    const named = (prefix: string) => spans.filter((s) => s.operationName.startsWith(prefix));
    const service = (s: JaegerSpan) => trace.processes[s.processID]?.serviceName;

    // the root: the client's span over the start, with the run's end on it
    const roots = spans.filter((s) => !parentOf(trace, s));
    expect(roots.map((s) => s.operationName)).toEqual(['invoke_workflow traced-review']);
    const [rootSpan] = roots;
    expect(service(rootSpan)).toBe('troupe-client');
    expect([tag(rootSpan, 'troupe.run.graph'), tag(rootSpan, 'troupe.run.status'), tag(rootSpan, 'troupe.run.reason')]).toEqual(['traced-review', 'exhausted', 'max_iterations']);
    expect(named('StartWorkflow:troupeRun').map((s) => parentOf(trace, s)?.spanID)).toEqual([rootSpan.spanID]);

    // one RunWorkflow per run, all beneath the root; the last one says how the run ended
    const runSpans = named('RunWorkflow:troupeRun');
    expect(runSpans).toHaveLength(runIds.length);
    for (const s of runSpans) {
      expect(isBeneath(trace, s, rootSpan)).toBe(true);
      expect(service(s)).toBe('troupe-worker');
      expect(tag(s, 'troupe.run.graph')).toBe('traced-review');
    }
    expect(named('ContinueAsNew:troupeRun')).toHaveLength(runIds.length - 1);
    // a workflow's spans name their run, and carry nothing else of its info (memo, search attributes)
    for (const s of [...runSpans, ...named('StartActivity:')]) expect(tag(s, 'workflowId')).toBe(workflowId);
    expect(spans.filter((s) => s.tags.some((t) => ['memo', 'searchAttributes', 'lastResult', 'historySize'].includes(t.key)))).toEqual([]);
    const ended = runSpans.filter((s) => tag(s, 'troupe.run.status') !== undefined);
    expect(ended.map((s) => [tag(s, 'troupe.run.status'), tag(s, 'troupe.run.reason')])).toEqual([['exhausted', 'max_iterations']]);

    // one invoke_agent per dispatch, beneath a RunWorkflow
    const dispatches = named('invoke_agent ');
    expect(dispatches).toHaveLength(result.usage.agentCalls);
    expect(dispatches.filter((s) => tag(s, 'gen_ai.agent.name') === 'writer')).toHaveLength(3);
    expect(dispatches.filter((s) => tag(s, 'gen_ai.agent.name') === 'critic')).toHaveLength(3);
    for (const d of dispatches) {
      expect(runSpans.some((r) => isBeneath(trace, d, r))).toBe(true);
      expect(tag(d, 'gen_ai.operation.name')).toBe('invoke_agent');
      expect(tag(d, 'gen_ai.provider.name')).toBe('openai');
    }
    const dispatchOf = (s: JaegerSpan) => dispatches.find((d) => isBeneath(trace, s, d));

    // each model request a `chat` span beneath its own agent's invoke_agent, the failed one too
    const allChats = named('chat ');
    expect(allChats).toHaveLength(stub.requests.length);
    const failed = allChats.filter((c) => tag(c, 'error.type') !== undefined);
    expect(failed.map((c) => [tag(c, 'error.type'), tag(c, 'otel.status_code'), tag(c, 'troupe.agent')])).toEqual([['503', 'ERROR', 'critic']]);
    const chats = allChats.filter((c) => !failed.includes(c));
    expect(chats).toHaveLength(result.usage.llmRequests);
    for (const c of chats) {
      const d = dispatchOf(c);
      expect(d).toBeDefined();
      expect(tag(c, 'troupe.agent')).toBe(tag(d!, 'gen_ai.agent.name'));
      expect(c.operationName).toBe(`chat ${tag(c, 'gen_ai.request.model')}`);
      expect(tag(c, 'gen_ai.operation.name')).toBe('chat');
      expect(tag(c, 'server.address')).toBe('127.0.0.1');
      expect(tag(c, 'server.port')).toBe(stub.port);
      expect(tag(c, 'gen_ai.request.stream')).toBe(true); // the stub streams, as most endpoints do
      expect(tag(c, 'gen_ai.response.finish_reasons')).toBeDefined();
    }
    // the writer's tool-loop calls are separate activities: still beneath the writer's dispatch
    expect(chats.filter((c) => tag(c, 'troupe.agent') === 'writer')).toHaveLength(6);

    // each tool call an `execute_tool` span beneath the writer's invoke_agent
    const toolSpans = named('execute_tool ');
    expect(toolSpans).toHaveLength(result.usage.toolCalls?.total ?? -1);
    expect(toolSpans).toHaveLength(3);
    for (const t of toolSpans) {
      expect(t.operationName).toBe('execute_tool shout');
      expect(tag(dispatchOf(t)!, 'gen_ai.agent.name')).toBe('writer');
      expect(tag(t, 'gen_ai.tool.name')).toBe('shout');
      expect(tag(t, 'gen_ai.tool.call.id')).toEqual(expect.any(String));
      expect(tag(t, 'troupe.tool.outcome')).toBe('ok');
      expect(tag(t, 'gen_ai.tool.call.result')).toBe('TITLE TITLE');
    }

    // tokens and cost add up to the RunResult's
    const sum = (key: string) => chats.reduce((n, c) => n + Number(tag(c, key) ?? 0), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(result.usage.promptTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(result.usage.completionTokens);
    expect(result.usage.costUsd).toBeGreaterThan(0);
    expect(sum('troupe.cost_usd')).toBeCloseTo(result.usage.costUsd, 9);
    const dispatchTokens = dispatches.reduce((n, d) => n + Number(tag(d, 'gen_ai.usage.input_tokens') ?? 0), 0);
    expect(dispatchTokens).toBe(result.usage.promptTokens);

    // content is captured, redacted: the critic's reply is there without the key; no span has the key
    const criticReplies = chats.filter((c) => tag(c, 'troupe.agent') === 'critic').map((c) => String(tag(c, 'gen_ai.output.messages')));
    expect(criticReplies).toHaveLength(3);
    for (const text of criticReplies) expect(text).toContain('the key is [redacted]');
    expect(JSON.stringify(trace)).not.toContain(SECRET);
  });

  test("a nested team's child run is in its parent's trace, beneath the team agent's invoke_agent", async () => {
    stub.reset();
    fs.writeFileSync(path.join(dir, 'research-team.yaml'), 'name: research-team\nagents:\n  searcher: { instructions: "Search." }\n  summarizer: { instructions: "Summarize." }\ncollaboration:\n  topology: pipeline\n  agents: [searcher, summarizer]\n');
    fs.writeFileSync(path.join(dir, 'report.yaml'), 'name: report\nagents:\n  research: { description: Researches the question, team: ./research-team.yaml }\n  writer: { instructions: "Write the report." }\ncollaboration:\n  topology: pipeline\n  agents: [research, writer]\n');
    const loaded = loadRoleFile(path.join(dir, 'report.yaml'));
    expect(loaded.errors).toEqual([]);
    const conn = await connectClient({ address: server.address, namespace: server.namespace, taskQueue: taskQueue, env: false });
    const workflowId = uniqueWorkflowId('traced-team');
    const root = openRunSpan('report');
    const handle = await root.within(() => startRun(conn.client, { role: loaded.graph!, task: 'a report', taskQueue: taskQueue, workflowId }));
    const result = await root.untraced(() => handle.result());
    root.end({ workflowId, status: result.status, reason: result.reason });
    await conn.close();
    expect(result.status).toBe('completed');
    await flushTracing();

    const trace = await oneTraceOf(jaeger, workflowId, 2);
    const team = trace.spans.find((s) => s.operationName === 'invoke_agent research')!;
    expect(tag(team, 'troupe.team')).toBe('./research-team.yaml');
    const [child] = trace.spans.filter((s) => s.operationName === 'RunWorkflow:troupeRun' && tag(s, 'workflowId') === `${workflowId}/${handle.firstExecutionRunId}/research-1`);
    expect(child).toBeDefined();
    expect(parentOf(trace, child)?.operationName).toBe('StartChildWorkflow:troupeRun');
    expect(isBeneath(trace, child, team)).toBe(true);
    const childDispatches = trace.spans.filter((s) => s.operationName.startsWith('invoke_agent ') && isBeneath(trace, s, child));
    expect(childDispatches.map((s) => tag(s, 'gen_ai.agent.name')).sort()).toEqual(['searcher', 'summarizer']);
    expect(trace.spans.filter((s) => s.operationName.startsWith('chat ') && isBeneath(trace, s, team))).toHaveLength(2);
  });

  test("the traced run's histories replay on a worker that does not trace; untraced ones on a worker that does", async () => {
    expect(histories.length).toBeGreaterThan(1);
    for (const { history, workflowId } of histories) await replayHistory(history, workflowId);
    const fixtures = path.resolve(__dirname, '..', 'fixtures', 'histories', 'v0.3');
    for (const file of ['review-loop-score.json', 'nested-team.json', 'swarm-handoffs-and-user.json', 'star-parallel.json']) {
      const history = JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')) as { events: Array<{ workflowExecutionStartedEventAttributes?: { workflowId?: string } }> };
      const workflowId = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? file;
      await Worker.runReplayHistory({ workflowBundle: traced, plugins: workerTracingPlugins(new Redactor()) }, history, workflowId);
    }
  });
});

/** The runs a follower saw start, in order. */
function runIdsOf(events: FollowEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'started' ? [e.runId] : []));
}

/**
 * The one trace that holds run `workflowId`, once Jaeger has the spans of all its `runs`: fails if
 * the run's spans are spread over several traces.
 */
async function oneTraceOf(jaeger: Jaeger, workflowId: string, runs: number): Promise<JaegerTrace> {
  const deadline = Date.now() + 30_000;
  let seen = '';
  for (;;) {
    const traces = [...(await jaeger.traces('troupe-client')), ...(await jaeger.traces('troupe-worker'))];
    const ofRun = new Map<string, JaegerTrace>();
    for (const t of traces) {
      if (t.spans.some((s) => s.tags.some((g) => typeof g.value === 'string' && g.value.startsWith(workflowId)))) ofRun.set(t.traceID, t);
    }
    const found = [...ofRun.values()];
    seen = found.map((t) => `${t.traceID}: ${t.spans.map((s) => s.operationName).join(', ')}`).join('\n');
    if (found.length > 1) throw new Error(`the run's spans are in ${found.length} traces:\n${seen}`);
    const [trace] = found;
    const complete =
      trace &&
      trace.spans.filter((s) => s.operationName === 'RunWorkflow:troupeRun').length === runs &&
      trace.spans.some((s) => s.operationName.startsWith('invoke_workflow'));
    if (complete) return trace;
    if (Date.now() > deadline) throw new Error(`Jaeger never had the whole trace of ${workflowId}; it has:\n${seen || '(nothing)'}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
