/**
 * Starts and stops a local Temporal dev server (`temporal server start-dev`) as a child process.
 * Shared by the server tests, `troupe dev` and the benchmarks, so all of them run against the same
 * real server binary that `scripts/get-temporal-cli.sh` provides.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as net from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { searchAttributeFlags } from '../core/observe/search';

const execFileAsync = promisify(execFile);

/**
 * Where the CLI-provisioning script lives, relative to this file (src/dev or dist/dev).
 * @internal exported for tests
 */
export const GET_TEMPORAL_CLI_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'get-temporal-cli.sh');

/** Messages shown to users and tests by this module, kept together so tests can pin them. */
const DEV_SERVER_MESSAGES = {
  noCli: (detail: string) =>
    `could not find the Temporal CLI (run \`bash scripts/get-temporal-cli.sh\` or set TEMPORAL_CLI): ${detail}`,
  exited: (code: number | null, signal: string | null, output: string) =>
    `temporal dev server exited before it was ready (code ${code}, signal ${signal})\n${output}`,
  notReady: (address: string, ms: number, detail: string) =>
    `temporal dev server at ${address} did not answer within ${ms} ms: ${detail}`,
} as const;

/**
 * Dynamic config for a local dev server that serves agent steps quickly (BENCHMARKS.md, B1 and B3):
 * the default transfer-queue poll rate (20/s) puts ~40 ms in each of a step's two hops, and eager
 * activity dispatch removes one hop. One partition per task queue (the default is 4) keeps a
 * workflow or activity task from waiting in a partition that no poller is on: with many runs
 * started at once, the first workflow task of some waited ~2 s. The memo warning limit lets a followed
 * run's progress records (a few KB each; docs/operating.md, "Following a run from code") pass without
 * a server warning per step. All are server settings, safe for a single-node dev server.
 */
export const FAST_LOCAL_DYNAMIC_CONFIG: Readonly<Record<string, DynamicConfigValue>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'system.enableActivityEagerExecution': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'limit.memoSize.warn': 524288,
};

/** A dynamic-config value for `--dynamic-config-value KEY=VALUE` (sent as JSON). */
export type DynamicConfigValue = string | number | boolean;

/**
 * Options of {@link startDevServer}; every field is optional.
 * @internal exported for tests
 */
export interface DevServerOptions {
  /** Frontend gRPC port; default: a free port. */
  port?: number;
  /** Web UI port; default: a free port. Ignored when `headless`. */
  uiPort?: number;
  /** Disable the Web UI (tests). Default false. */
  headless?: boolean;
  /** The Web UI's remote codec endpoint (`--ui-codec-endpoint`), a URL the browser can reach. */
  uiCodecEndpoint?: string;
  /** SQLite file to persist state across restarts; default in-memory. */
  dbFile?: string;
  /** Server dynamic config, e.g. `{ 'limit.historyCount.suggestContinueAsNew': 400 }`. */
  dynamicConfig?: Record<string, DynamicConfigValue>;
  /** Receives each line the server prints (default: dropped, kept for error messages). */
  log?: (line: string) => void;
  /** Receives the CLI-provisioning script's progress lines (default: `log`). */
  cliLog?: (line: string) => void;
  /** Path of the `temporal` binary; default `TEMPORAL_CLI` or the provisioning script. */
  cliPath?: string;
  /** Namespace to wait for (created automatically when not `default`). Default `default`. */
  namespace?: string;
  /** How long to wait for the frontend to answer. Default 30 000 ms. */
  readyTimeoutMs?: number;
  /** Server log level. Default `warn`. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'never';
  /**
   * Custom search attributes to register, as `Name=Type`. Default: troupe's own
   * (`TroupeGraph=Keyword`, …; docs/operating.md, "Finding runs"); `[]` registers none.
   */
  searchAttributes?: readonly string[];
}

/** A running dev server; `stop()` kills its process group and is safe to call twice. */
export interface DevServer {
  /** `host:port` of the frontend gRPC service. */
  address: string;
  /** Web UI base URL, absent when headless. */
  uiUrl?: string;
  namespace: string;
  pid: number;
  /** `temporal --version` output, e.g. `temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)`. */
  version: string;
  cliPath: string;
  stop(): Promise<void>;
}

/**
 * Resolves the `temporal` CLI: `TEMPORAL_CLI` as given, else the path printed by
 * `scripts/get-temporal-cli.sh`, which may install it (minutes on a fresh machine); its log lines
 * are streamed to `onLog` as they come.
 * @internal exported for tests
 */
export function findTemporalCli(onLog?: (line: string) => void): Promise<string> {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) return Promise.resolve(fromEnv);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [GET_TEMPORAL_CLI_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const log: string[] = [];
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    pipeStream(child.stderr, (line) => {
      log.push(line);
      onLog?.(line);
    });
    child.once('error', (e) => reject(new Error(DEV_SERVER_MESSAGES.noCli(e.message))));
    child.once('close', (code) => {
      const cli = stdout.trim().split('\n').pop();
      if (code === 0 && cli) resolve(cli);
      else reject(new Error(DEV_SERVER_MESSAGES.noCli(log.join('\n') || `exit code ${code}`)));
    });
  });
}

/** Returns `temporal --version` of the given binary (one line). */
async function temporalCliVersion(cliPath: string): Promise<string> {
  const { stdout } = await execFileAsync(cliPath, ['--version'], { timeout: 30_000 });
  return stdout.trim();
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Builds the `temporal server start-dev` argument list (exported for tests and `troupe dev`).
 * @internal exported for tests
 */
export function devServerArgs(o: {
  port: number;
  uiPort?: number;
  headless: boolean;
  uiCodecEndpoint?: string;
  dbFile?: string;
  dynamicConfig?: Record<string, DynamicConfigValue>;
  namespace: string;
  logLevel: string;
  searchAttributes?: readonly string[];
}): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port)];
  if (o.headless) args.push('--headless');
  else if (o.uiPort !== undefined) args.push('--ui-port', String(o.uiPort));
  if (!o.headless && o.uiCodecEndpoint) args.push('--ui-codec-endpoint', o.uiCodecEndpoint);
  if (o.dbFile) args.push('--db-filename', o.dbFile);
  if (o.namespace !== 'default') args.push('--namespace', o.namespace);
  for (const [key, value] of Object.entries(o.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  for (const attribute of o.searchAttributes ?? []) args.push('--search-attribute', attribute);
  args.push('--log-level', o.logLevel);
  return args;
}

/**
 * Starts `temporal server start-dev` on 127.0.0.1 and resolves once the frontend answers a
 * DescribeNamespace call. When the ports were chosen here and the server dies at startup (a port
 * taken in the meantime), it retries with new ports up to 3 times.
 */
export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const cliPath = opts.cliPath ?? (await findTemporalCli(opts.cliLog ?? opts.log));
  const version = await temporalCliVersion(cliPath);
  const attempts = opts.port === undefined ? 3 : 1;
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await startOnce(cliPath, version, opts);
    } catch (err) {
      lastError = err;
      if (!(err instanceof EarlyExitError)) throw err;
    }
  }
  throw lastError;
}

class EarlyExitError extends Error {}

async function startOnce(cliPath: string, version: string, opts: DevServerOptions): Promise<DevServer> {
  const port = opts.port ?? (await freePort());
  const headless = opts.headless ?? false;
  const uiPort = headless ? undefined : (opts.uiPort ?? (await freePort()));
  const namespace = opts.namespace ?? 'default';
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const address = `127.0.0.1:${port}`;
  const args = devServerArgs({
    port,
    uiPort,
    headless,
    uiCodecEndpoint: opts.uiCodecEndpoint,
    dbFile: opts.dbFile,
    dynamicConfig: opts.dynamicConfig,
    namespace,
    logLevel: opts.logLevel ?? 'warn',
    searchAttributes: opts.searchAttributes ?? searchAttributeFlags(),
  });

  const child = spawn(cliPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const onLine = (line: string) => {
    output.push(line);
    if (output.length > 200) output.shift();
    opts.log?.(line);
  };
  pipeLines(child, onLine);

  let exited: { code: number | null; signal: string | null } | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
    child.once('error', (err) => {
      onLine(`spawn error: ${err.message}`);
      exited = { code: null, signal: null };
      resolve();
    });
  });

  const killGroup = (signal: NodeJS.Signals) => {
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      try {
        child.kill(signal);
      } catch {
        /* already gone */
      }
    }
  };
  const onProcessExit = () => killGroup('SIGKILL');
  process.once('exit', onProcessExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', onProcessExit);
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 10_000);
      await exitPromise;
      clearTimeout(timer);
    })();
    return stopping;
  };

  try {
    await waitUntilReady(address, namespace, readyTimeoutMs, () => exited);
  } catch (err) {
    await stop();
    if (exited && !(err instanceof ReadyTimeoutError)) {
      throw new EarlyExitError(DEV_SERVER_MESSAGES.exited(exited.code, exited.signal, output.join('\n')));
    }
    throw err;
  }

  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
    namespace,
    pid: child.pid as number,
    version,
    cliPath,
    stop,
  };
}

class ReadyTimeoutError extends Error {}

async function waitUntilReady(
  address: string,
  namespace: string,
  timeoutMs: number,
  exited: () => unknown,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt yet';
  while (Date.now() < deadline) {
    if (exited()) throw new Error('exited');
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.describeNamespace({ namespace });
      return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new ReadyTimeoutError(DEV_SERVER_MESSAGES.notReady(address, timeoutMs, lastError));
}

function pipeLines(child: ChildProcess, onLine: (line: string) => void): void {
  if (child.stdout) pipeStream(child.stdout, onLine);
  if (child.stderr) pipeStream(child.stderr, onLine);
}

function pipeStream(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    lines.filter((l) => l.trim()).forEach(onLine);
  });
  stream.on('end', () => {
    if (buf.trim()) onLine(buf);
  });
}
