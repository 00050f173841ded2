/**
 * B7 — history events and bytes per tool call: one agent with a worker tool (a module tool,
 * bench/tools/echo.ts) calls it once per reply, R times in one dispatch. Each call is a `callModel`
 * activity (the reply asking for it) and a `callTool` activity (src/workflows/tool-dispatch.ts). Beside
 * it, in the same run, the floor workflow runs bare activities carrying the same payloads as the
 * `callTool` activities. Deterministic: sizes and counts, no timing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorker } from '../src/worker';
import { activitySteps, eventRows, type EventRow, type History } from './lib/history';
import { BENCH_TASK } from './lib/loops';
import { compileYaml, type Stack } from './lib/stack';
import { linearFit, median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Tool calls in the dispatch (one per model reply). */
export const B7_CALLS = 8;
/** Characters of each tool result. */
export const B7_RESULT_CHARS = 1_000;
const QUESTION = 'What does durable execution guarantee when the worker running a long agent step crashes midway?';

function roleYaml(): string {
  return `
name: bench-tools
agents:
  researcher:
    instructions: "Look things up with the lookup tool, then answer."
    tools: [lookup]
    max_tool_rounds: ${B7_CALLS + 1}
collaboration:
  topology: pipeline
  agents: [researcher]
`;
}

interface Slice {
  events: number;
  bytes: number;
  modelBytes: number;
  toolBytes: number;
  modelInputBytes: number;
}

/** Bytes of the events whose ids lie in [from, to). */
function bytesIn(rows: readonly EventRow[], from: number, to: number): { events: number; bytes: number } {
  const inRange = rows.filter((r) => r.id >= from && r.id < to);
  return { events: inRange.length, bytes: inRange.reduce((n, r) => n + r.bytes, 0) };
}

/** Splits a tool dispatch's history at each `callModel` scheduling: one slice per tool call (model reply + tool call). */
function toolCallSlices(history: History): Slice[] {
  const rows = eventRows(history);
  const steps = activitySteps(history);
  const models = steps.filter((s) => s.activityType === 'callModel');
  const out: Slice[] = [];
  for (let k = 0; k + 1 < models.length; k++) {
    const [from, to] = [models[k].scheduledId, models[k + 1].scheduledId];
    const tool = steps.find((s) => s.activityType === 'callTool' && s.scheduledId > from && s.scheduledId < to);
    if (!tool) continue;
    const all = bytesIn(rows, from, to);
    const model = bytesIn(rows, from, tool.scheduledId);
    out.push({ events: all.events, bytes: all.bytes, modelBytes: model.bytes, toolBytes: all.bytes - model.bytes, modelInputBytes: models[k].inputBytes });
  }
  return out;
}

/** Per bare activity: events and bytes from one scheduling to the next. */
function floorSlices(history: History): Array<{ events: number; bytes: number; inputBytes: number; resultBytes: number }> {
  const rows = eventRows(history);
  const steps = activitySteps(history);
  const out = [];
  for (let k = 0; k + 1 < steps.length; k++) {
    const r = bytesIn(rows, steps[k].scheduledId, steps[k + 1].scheduledId);
    out.push({ ...r, inputBytes: steps[k].inputBytes, resultBytes: steps[k].resultBytes });
  }
  return out;
}

/** Runs B7. */
export async function runB7(ctx: BenchContext): Promise<BenchReport> {
  const stack: Stack = ctx.variants.tuned ?? ctx.p0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-tools-'));
  const toolsFile = path.join(dir, 'tools.yaml');
  fs.writeFileSync(toolsFile, `modules: [${JSON.stringify(path.join(__dirname, 'tools', 'echo.ts'))}]\n`);
  const taskQueue = `bench-tools-${process.pid}`;
  const worker = await createWorker({
    address: stack.server.address,
    namespace: stack.server.namespace,
    taskQueue,
    workflowBundle: ctx.bundles.troupe,
    llm: { baseUrl: ctx.stub.url, apiKey: 'bench-key', env: {} },
    tools: toolsFile,
  });
  const running = worker.run();
  let troupeHistory: History;
  let floorHistory: History;
  try {
    await ctx.stub.toolCalls({ agent: 'researcher', calls: B7_CALLS, tool: 'lookup', arguments: { question: QUESTION, bytes: B7_RESULT_CHARS } });
    const handle = await stack.startTroupe(compileYaml(roleYaml()), BENCH_TASK, taskQueue);
    const result = await stack.result(handle);
    if (result.usage.toolCalls?.total !== B7_CALLS) throw new Error(`B7: expected ${B7_CALLS} tool calls, got ${JSON.stringify(result.usage.toolCalls)}`);
    troupeHistory = await handle.fetchHistory();
    const tool = activitySteps(troupeHistory).find((s) => s.activityType === 'callTool')!;
    // the bare activity carries what the tool call's activity carries: its input and its result
    const input = JSON.parse(Buffer.from(troupeHistory.events!.find((e) => Number(e.eventId) === tool.scheduledId)!.activityTaskScheduledEventAttributes!.input!.payloads![0].data!).toString('utf8')) as unknown;
    const payload = JSON.stringify(input);
    const floor = await stack.startFloorPayload({ steps: B7_CALLS + 1, payload: payload.slice(0, Math.max(0, payload.length - 40)), replyChars: Math.max(1, tool.resultBytes - 2) });
    await floor.result();
    floorHistory = await floor.fetchHistory();
  } finally {
    await ctx.stub.toolCalls(undefined);
    worker.shutdown();
    await running;
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const slices = toolCallSlices(troupeHistory);
  const bare = floorSlices(floorHistory);
  const troupeTool = activitySteps(troupeHistory).filter((s) => s.activityType === 'callTool');
  const fit = linearFit(slices.map((_, i) => i + 1), slices.map((s) => s.bytes));
  const bareBytes = median(bare.map((b) => b.bytes));
  const bareEvents = median(bare.map((b) => b.events));
  const toolPart = median(slices.map((s) => s.toolBytes));
  const rows = slices.map((s, i) => [i + 1, s.events, s.bytes, s.modelBytes, s.modelInputBytes, s.toolBytes, round(s.toolBytes / bareBytes, 3), round(s.bytes / bareBytes, 2)]);
  const events = [...new Set(slices.map((s) => s.events))];
  const targets: TargetCheck[] = [
    { target: 'events per tool call (model reply + tool call) = 12, every call', measured: events.join(', '), met: events.length === 1 && events[0] === 12 },
    {
      target: '(B7) the tool call\'s own activity ≤ 1.2 × a bare activity with the same payload',
      measured: `${round(toolPart)} B vs ${round(bareBytes)} B (×${round(toolPart / bareBytes, 3)})`,
      met: toolPart <= 1.2 * bareBytes,
    },
  ];
  return {
    id: 'B7',
    title: 'History events and bytes per tool call',
    method:
      `One run: agent "researcher" with the module tool \`lookup\` (bench/tools/echo.ts) calls it once per model reply, ${B7_CALLS} times in one dispatch, then answers; each tool result is ${B7_RESULT_CHARS} characters. ` +
      `A tool call = the \`callModel\` activity whose reply asks for it + the \`callTool\` activity, each with the workflow task after it; the history is cut at each \`callModel\` scheduling. ` +
      `Same run: the floor workflow's bare activity (bench/floor) carrying the same input and result sizes as the \`callTool\` activity (${troupeTool[0]?.inputBytes ?? '?'} B in, ${troupeTool[0]?.resultBytes ?? '?'} B out), ${B7_CALLS + 1} in a row. Bytes are protobuf-encoded history events.`,
    tables: [
      {
        title: 'Per tool call (model reply + tool call)',
        headers: ['call', 'events', 'bytes', 'of which the model reply', 'model input payload', 'of which the tool call', 'tool part ÷ bare activity', 'whole ÷ bare activity'],
        rows,
        note: `Bare activity (same run, median of ${bare.length}): ${bareEvents} events, ${round(bareBytes)} B per activity. Bytes per tool call grow by ${round(fit.slope)} B per call within the dispatch (R² ${round(fit.r2, 3)}): each model call carries the dispatch's messages so far (tool calls and results included; results of earlier rounds shrink to 1 KiB once the messages pass 512 KiB, src/core/llm/tool-calls.ts), so a dispatch of R calls stores O(R²) bytes, bounded by max_tool_rounds (default 8).`,
      },
    ],
    targets,
    data: { calls: B7_CALLS, resultChars: B7_RESULT_CHARS, slices, bare, slope: fit, bareBytes, bareEvents },
  };
}
