/**
 * `npm run test:real`: the examples and a set of team, tool, output-schema and goal tasks run
 * against a real LLM, reporting per task whether the model did what troupe's prompt asked (a
 * transfer made, a tool called, a schema valid on the first call, the run ending for the expected
 * reason). A task's transfer to the user is answered by the suite with the task's `answer`. Not part of `npm test`:
 * a small local model answers at ~20 tokens/s on a laptop CPU, so the suite takes tens of minutes.
 *
 * It needs an OpenAI-compatible endpoint of a model that supports tool calls, given as
 * `TROUPE_REAL_BASE_URL` (e.g. `http://127.0.0.1:18080/v1` for llama.cpp's or Ollama's server, or
 * a local kit such as the one this project's maintainers use to serve Qwen2.5-Coder 0.5B/1.5B
 * offline); `TROUPE_REAL_MODEL` names the model in the report (default: what `/models` lists). It
 * starts its own Temporal dev server and worker.
 *
 *   TROUPE_REAL_BASE_URL=http://127.0.0.1:18080/v1 npm run test:real -- [--runs 5] [--only tools,schema] [--timeout-ms N] [--json out.json]
 *
 * `--timeout-ms N` gives every call N ms whatever the role says: the prompt-quality figures then
 * measure what the model does, not how fast this machine runs it (the examples keep their own
 * timeouts without it).
 *
 * Exit 0 always (a model's failure is a figure, not an error), 1 when the suite itself could not run.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { connectClient, queryStatus, queryTranscript, sendSignal, startRun } from '../../src/client';
import { loadRoleConfig } from '../../src/core/config/load';
import type { RunResult } from '../../src/core/ending/result';
import type { TranscriptStep } from '../../src/core/state/state';
import { FAST_LOCAL_DYNAMIC_CONFIG, startDevServer } from '../../src/dev/temporal-server';
import { loadRoleFile } from '../../src/config-file';
import { createWorker } from '../../src/worker';
import { EXAMPLE_TASKS, GOAL_TASKS, SCHEMA_TASKS, TEAM_TASKS, TOOL_TASKS, examplePath, type RealTask, type Verdict } from './tasks';

const ROOT = path.resolve(__dirname, '..', '..');

interface Outcome {
  task: string;
  group: RealTask['group'];
  run: number;
  ok: boolean;
  note: string;
  seconds: number;
  modelCalls: number;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** A tools file of the suite's own: the filesystem server on a scratch folder holding a README, and the word-count module. */
function toolsFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-real-'));
  const workspace = path.join(dir, 'workspace');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'README.md'), 'Notes of the research team.\nKeep one file per topic.\n');
  const server = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
  const file = path.join(dir, 'tools.yaml');
  fs.writeFileSync(
    file,
    `mcp_servers:\n  files:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(server)}, ./workspace]\n    timeout_ms: 30000\n` +
      `modules: [${JSON.stringify(path.join(ROOT, 'examples', 'tools', 'word-count.ts'))}]\n`,
  );
  return file;
}

async function modelName(baseUrl: string): Promise<string> {
  if (process.env.TROUPE_REAL_MODEL) return process.env.TROUPE_REAL_MODEL;
  try {
    const r = await fetch(`${baseUrl.replace(/\/$/, '')}/models`);
    const body = (await r.json()) as { data?: Array<{ id?: string }> };
    return body.data?.[0]?.id ?? 'unknown model';
  } catch {
    return 'unknown model';
  }
}

function graphOf(task: RealTask) {
  const r = 'file' in task.role ? loadRoleFile(examplePath(task.role.file)) : loadRoleConfig(task.role.yaml, `${task.id}.yaml`);
  if (!r.graph) throw new Error(`${task.id}: the role does not load: ${r.errors.map((e) => e.message).join('; ')}`);
  return r.graph;
}

function rate(outcomes: Outcome[]): string {
  const ok = outcomes.filter((o) => o.ok).length;
  return `${ok}/${outcomes.length} (${Math.round((100 * ok) / Math.max(1, outcomes.length))} %)`;
}

/** The report: one line per group, then one per run. */
export function report(model: string, outcomes: Outcome[]): string {
  const groups = [...new Set(outcomes.map((o) => o.group))];
  const lines = [
    `## Prompt quality: ${model}`,
    '',
    '| group | did what was asked |',
    '|---|---|',
    ...groups.map((g) => `| ${g} | ${rate(outcomes.filter((o) => o.group === g))} |`),
    '',
    '| task | run | did what was asked | how it ended | seconds | model calls |',
    '|---|---|---|---|---|---|',
    ...outcomes.map((o) => `| ${o.task} | ${o.run} | ${o.ok ? 'yes' : 'no'} | ${o.note.replace(/\|/g, '/')} | ${o.seconds.toFixed(0)} | ${o.modelCalls} |`),
  ];
  return lines.join('\n');
}

/** The run's result; each request it opens meanwhile gets `answer` (a transfer to the user), when the task has one. */
async function resultAnswering(handle: Awaited<ReturnType<typeof startRun>>, answer: string | undefined): Promise<RunResult> {
  const done = handle.result();
  if (answer === undefined) return done;
  let finished = false;
  void done.then(() => (finished = true), () => (finished = true));
  while (!finished) {
    await Promise.race([done.catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
    if (finished) break;
    const status = await queryStatus(handle).catch(() => undefined);
    for (const request of status?.pending ?? []) await sendSignal(handle, 'answer', { text: answer, requestId: request.id });
  }
  return done;
}

async function main(): Promise<number> {
  const baseUrl = process.env.TROUPE_REAL_BASE_URL;
  if (!baseUrl) {
    process.stderr.write('npm run test:real needs TROUPE_REAL_BASE_URL: the OpenAI-compatible base URL of a real model (see test/real/main.ts)\n');
    return 1;
  }
  const runs = Number(flag('runs') ?? 5);
  const only = flag('only')?.split(',');
  const timeoutMs = flag('timeout-ms') ? Number(flag('timeout-ms')) : undefined;
  const all = [...EXAMPLE_TASKS, ...TEAM_TASKS, ...TOOL_TASKS, ...SCHEMA_TASKS, ...GOAL_TASKS].filter((t) => !only || only.includes(t.group) || only.includes(t.id));
  const model = await modelName(baseUrl);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await startDevServer({ dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG }, headless: true });
  const taskQueue = `real-${Date.now()}`;
  const worker = await createWorker({
    address: server.address,
    namespace: server.namespace,
    taskQueue,
    env: false,
    llm: { baseUrl, apiKey: process.env.TROUPE_REAL_API_KEY ?? 'local', env: {}, trustRoleEndpoints: true },
    tools: toolsFile(),
  });
  const running = worker.run();
  const { client, close } = await connectClient({ address: server.address, namespace: server.namespace, env: false });
  const outcomes: Outcome[] = [];
  try {
    for (const task of all) {
      // the examples run once; the measured tasks `runs` times (the research example too)
      const times = task.group === 'example' ? 1 : runs;
      for (let run = 1; run <= times; run += 1) {
        const graph = graphOf(task);
        // the model named by a role file is the real model here
        for (const agent of Object.values(graph.agents)) {
          agent.model.name = model;
          if (timeoutMs) agent.timeoutMs = timeoutMs;
        }
        graph.judge.model.name = model;
        const started = Date.now();
        let verdict: Verdict;
        let result: RunResult | undefined;
        try {
          const handle = await startRun(client, { role: graph, task: task.task ?? graph.task ?? task.asks, taskQueue });
          result = await resultAnswering(handle, task.answer);
          const transcript: TranscriptStep[] = await queryTranscript(handle);
          verdict = task.check(result, transcript);
        } catch (e) {
          verdict = { ok: false, note: `suite error: ${(e as Error).message}` };
        }
        const outcome: Outcome = {
          task: task.id,
          group: task.group,
          run,
          ok: verdict.ok,
          note: verdict.note,
          seconds: (Date.now() - started) / 1000,
          modelCalls: result?.usage.agentCalls ?? 0,
        };
        outcomes.push(outcome);
        process.stderr.write(`[real] ${task.id} #${run}: ${outcome.ok ? 'yes' : 'no'} — ${outcome.note} (${outcome.seconds.toFixed(0)} s)\n`);
      }
    }
  } finally {
    // a worker that stopped by itself (its run() rejected) cannot be shut down again
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch((e: unknown) => process.stderr.write(`[real] the worker stopped: ${(e as Error).message}\n`));
    await close();
    await server.stop();
  }
  const text = report(model, outcomes);
  process.stdout.write(`${text}\n`);
  const json = flag('json');
  if (json) fs.writeFileSync(json, JSON.stringify({ model, baseUrl, outcomes }, null, 2));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
