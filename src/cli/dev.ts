/**
 * `troupe dev [role.yaml] [--task T] [--port P] [--ui-port P] [--metrics ADDR] [--exit]` / `npm run demo`: the whole
 * product on one machine. Starts a local Temporal dev server with its Web UI (ports: `dev-ports.ts`),
 * the built-in offline model when no OPENAI_API_KEY is set, a worker, and a run of the example review
 * loop; prints its progress, the result and where to inspect its history. Keeps the server up until
 * Ctrl+C when run in a terminal. Its worker honours a role's own `base_url` and `api_key_env` without
 * the worker allowlists, and logs at WARN (INFO with TROUPE_DEV_LOG; `TROUPE_LOG_LEVEL` wins).
 */
import * as path from 'node:path';
import { Runtime } from '@temporalio/worker';
import { connectClient, followRun, startRun, webUiLink } from '../client';
import type { DevServer } from '../dev/temporal-server';
import { formatIssue } from '../core/config/issues';
import { loadRoleFile } from '../config-file';
import { FAST_LOCAL_DYNAMIC_CONFIG, startDevServer } from '../dev/temporal-server';
import { payloadCodecFromEnv, startCodecServer } from '../codec';
import { startOfflineModel } from '../dev/offline-model';
import { taskQueueFromEnv } from '../settings';
import { metricsAddress, METRICS_TEXTS } from '../telemetry/worker-metrics';
import { waitingIntervalFromEnv, watchWaitingRuns } from '../telemetry/waiting';
import { createWorker } from '../worker';
import { openToolsOrExplain } from './open-tools';
import { checkRoleTools } from '../tools/check-role';
import { booleanFlag, stringFlag, type ParsedArgs } from './args';
import { err, out } from './io';
import { createFollowView, followMode } from './follow-view';
import { exitCodeOf, printResult } from './run';
import { CLI_RUN_TEXTS } from './run-texts';
import { devPorts } from './dev-ports';
import { installWorkerLogger, logLevelFromEnv } from './worker-log';

const DEMO_FILE = path.resolve(__dirname, '..', '..', 'examples', 'review-loop.yaml');

/**
 * Milliseconds between the offline model's streamed chunks in `troupe dev`, so its agents are seen
 * writing (docs/observability.md, "Live output"); `TROUPE_OFFLINE_CHUNK_MS` sets it, 0 for none.
 */
const OFFLINE_CHUNK = { defaultMs: 15, variable: 'TROUPE_OFFLINE_CHUNK_MS' } as const;

function offlineChunkMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env[OFFLINE_CHUNK.variable]);
  return env[OFFLINE_CHUNK.variable] !== undefined && Number.isFinite(value) && value >= 0 ? value : OFFLINE_CHUNK.defaultMs;
}

const CLI_DEV_TEXTS = {
  banner: 'troupe dev — local Temporal dev server + worker + an example run',
  server: (address: string, ui?: string) => `Temporal dev server at ${address}${ui ? `, Web UI at ${ui}` : ''}`,
  offline: (url: string) =>
    `no OPENAI_API_KEY set: agents use troupe's built-in OFFLINE MODEL at ${url} (a deterministic stand-in, not a real LLM)`,
  realModel: (base: string) => `using the OpenAI-compatible endpoint ${base} (OPENAI_API_KEY is set)`,
  running: (file: string, task: string) => `running ${path.relative(process.cwd(), file) || file} with task: ${task}`,
  keepAlive: 'The server and Web UI stay up so you can inspect the run; press Ctrl+C to stop.',
  otherShell: (address: string) => `In another shell: TEMPORAL_ADDRESS=${address} npx troupe status <id>`,
  encrypted: (keyId: string, codecUrl: string) =>
    `payloads are encrypted (TROUPE_PAYLOAD_KEY, key id ${keyId}); the Web UI decrypts them through the codec server at ${codecUrl}`,
} as const;

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const file = args.positionals[0] ?? DEMO_FILE;
  let codec;
  let logLevel;
  let metrics: string | undefined;
  let waitingIntervalMs = 0;
  try {
    codec = payloadCodecFromEnv();
    // the demo's output is the run's progress; worker lifecycle logs only at WARN and above
    logLevel = logLevelFromEnv(process.env.TROUPE_DEV_LOG ? 'INFO' : 'WARN');
    metrics = metricsAddress(stringFlag(args, 'metrics'));
    if (metrics) waitingIntervalMs = waitingIntervalFromEnv();
  } catch (e) {
    err((e as Error).message);
    return 1;
  }
  const ports = await devPorts(args);
  if ('error' in ports) {
    err(ports.error);
    return 1;
  }
  const tools = await openToolsOrExplain(stringFlag(args, 'tools'));
  if (tools === false) return 1;
  const offered = tools?.definitions();
  const loaded = loadRoleFile(file, offered ? (config) => checkRoleTools(config, offered) : undefined);
  for (const e of loaded.errors) err(formatIssue(e));
  if (!loaded.graph || loaded.errors.length) {
    await tools?.close();
    return 1;
  }
  const graph = loaded.graph;
  const task = stringFlag(args, 'task') ?? graph.task ?? 'Write a short essay on why the sky is blue.';

  try {
    installWorkerLogger(logLevel, metrics);
  } catch (e) {
    err((e as Error).message);
    await tools?.close();
    return 1;
  }
  out(CLI_DEV_TEXTS.banner);
  if (metrics) out(METRICS_TEXTS.serving(metrics));
  const { port, uiPort } = ports;
  // with a payload key, the UI reads payloads through a codec server that allows only its origin
  const codecServer = codec
    ? await startCodecServer({ codec, port: 0, origins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`] })
    : undefined;
  const server = await startDevServer({
    dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG },
    ...(port !== undefined ? { port } : {}),
    uiPort,
    ...(codecServer ? { uiCodecEndpoint: codecServer.url } : {}),
    log: process.env.TROUPE_DEV_LOG ? (l) => err(`[temporal] ${l}`) : undefined,
    cliLog: (l) => err(`[temporal cli] ${l}`),
  }).catch(async (e: unknown) => {
    await codecServer?.close();
    throw e;
  });
  const cleanups: Array<() => Promise<unknown>> = [() => server.stop(), async () => tools?.close(), async () => codecServer?.close()];
  try {
    out(CLI_DEV_TEXTS.server(server.address, server.uiUrl));
    if (codec && codecServer) out(CLI_DEV_TEXTS.encrypted(codec.keyIds[0], codecServer.url));
    process.env.TEMPORAL_ADDRESS = server.address;
    let baseUrl: string | undefined;
    if (!process.env.OPENAI_API_KEY) {
      const model = await startOfflineModel({ chunkDelayMs: offlineChunkMs(process.env) });
      cleanups.unshift(() => model.close());
      baseUrl = model.url;
      out(CLI_DEV_TEXTS.offline(model.url));
    } else {
      out(CLI_DEV_TEXTS.realModel(process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1'));
    }
    // one person owns both the role files and this worker, so the roles' own endpoints and key variables are honoured
    const llm = { ...(baseUrl ? { baseUrl } : {}), trustRoleEndpoints: true };
    // its own server, whatever TEMPORAL_* or a profile file say about another one
    const local = { address: server.address, namespace: server.namespace, taskQueue: taskQueueFromEnv(), env: false } as const;
    const worker = await createWorker({ ...local, llm, ...(tools ? { tools } : {}) });
    const running = worker.run();
    cleanups.unshift(async () => {
      worker.shutdown();
      await running;
    });
    if (metrics && worker.connection) {
      const { namespace, taskQueue } = local;
      const stop = watchWaitingRuns({ connection: worker.connection, namespace, taskQueue, meter: Runtime.instance().metricMeter, intervalMs: waitingIntervalMs, warn: err });
      cleanups.unshift(async () => stop());
    }

    const conn = await connectClient(local);
    cleanups.unshift(() => conn.close());
    out(CLI_DEV_TEXTS.running(file, task));
    const handle = await startRun(conn.client, { role: graph, task, taskQueue: conn.settings.taskQueue });
    out(CLI_RUN_TEXTS.started(handle.workflowId, conn.settings.taskQueue));
    if (server.uiUrl) out(CLI_RUN_TEXTS.uiLink(devUiLink(server, handle.workflowId)));
    const view = createFollowView(handle.workflowId, followMode(false, process.stdout), { out, err, stream: process.stdout });
    const result = await followRun(handle, (e) => view.onEvent(e)).catch((e: unknown) => {
      view.close();
      throw e;
    });
    view.close(result);
    printResult(result, out);
    out('');
    if (server.uiUrl) out(CLI_RUN_TEXTS.uiLink(devUiLink(server, handle.workflowId)));
    const code = exitCodeOf(result);
    if (booleanFlag(args, 'exit') || !process.stdout.isTTY) return code;
    out(CLI_DEV_TEXTS.keepAlive);
    out(CLI_DEV_TEXTS.otherShell(server.address));
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    return code;
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/** The run's page in the Web UI this dev server serves. */
function devUiLink(server: DevServer, workflowId: string): string {
  return webUiLink({ address: server.address, tls: false, namespace: server.namespace }, workflowId, { TEMPORAL_UI_URL: server.uiUrl }) as string;
}
