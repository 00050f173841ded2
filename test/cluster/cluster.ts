/**
 * The deployment of docker-compose.yml, started as local processes from the same files
 * (docs/deploying.md, "The deployment, run for real"): PostgreSQL, `deploy/scripts/setup-postgres-schema.sh`,
 * the Temporal server with `deploy/dynamicconfig/troupe.yaml`, `deploy/scripts/setup-namespace.sh`,
 * `troupe worker --metrics` processes and Prometheus with a config made from
 * `deploy/prometheus/prometheus.yml`. Used by `npm run test:cluster` and the cluster benchmark (B16).
 *
 * What differs from compose, and why:
 * - PostgreSQL is a private cluster (`initdb` into a temporary folder, its own port), so the test
 *   never touches a database of the machine; as root it runs as the `postgres` user, as PostgreSQL requires.
 * - The server runs the `temporal-server` binary (scripts/get-temporal-server.sh) with the module's
 *   `config/development-postgres12.yaml`, its ports moved to free ones, instead of the image's
 *   config template; the dynamic config file is the deploy file itself.
 * - The deploy scripts run with the tools the admin-tools image has on PATH: `temporal`,
 *   `temporal-sql-tool` and `nc`.
 * - Prometheus finds the workers in a file the harness writes (`file_sd_configs`) instead of the
 *   compose service's DNS name, and scrapes every second instead of every 15 s, so a figure is current
 *   within seconds; the jobs, their names and everything else come from the deploy file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { findTemporalCli, freePort } from '../../src/dev/temporal-server';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const execFileAsync = promisify(execFile);
const REPO = path.resolve(__dirname, '..', '..');
const DEPLOY = path.join(REPO, 'deploy');
/** The password of the database user `temporal`: docker-compose.yml's default for POSTGRES_PASSWORD. */
const POSTGRES_PASSWORD = 'temporal';

/** What the harness tells a user who lacks a part, with the command that provides it. */
export const CLUSTER_TEXTS = {
  noPostgres: 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install -y postgresql',
  noPrometheus: 'Prometheus is not installed (no `prometheus` on PATH): apt-get install -y --no-install-recommends prometheus',
  noNetcat: 'deploy/scripts/setup-postgres-schema.sh waits with `nc`, which is not on PATH: apt-get install -y netcat-openbsd',
  badDynamicConfig: (output: string) => `the Temporal server warns about deploy/dynamicconfig/troupe.yaml (temporal-server validate-dynamic-config):\n${output}`,
  failed: (what: string, code: number | null, output: string) => `${what} exited with ${code}:\n${output}`,
  notReady: (what: string, ms: number, output: string) => `${what} was not ready within ${ms / 1000} s:\n${output}`,
} as const;

/** A troupe worker of the cluster, with the address it serves metrics on. */
export interface ClusterWorker extends WorkerProcess {
  name: string;
  metrics: string;
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Lines the harness reports as it goes (setup steps, restarts). */
  log?: (line: string) => void;
  /**
   * Dynamic config keys added after the deploy file's, for what a test needs and a deployment does
   * not (a key the deploy file sets cannot be added: YAML refuses a duplicate key).
   */
  extraDynamicConfig?: Record<string, unknown>;
}

/** A started cluster; {@link Cluster.stop} ends every process and removes its folder. */
export interface Cluster {
  /** The frontend, e.g. 127.0.0.1:41234. */
  address: string;
  namespace: string;
  /** The temporary folder holding the database, configs and logs. */
  dir: string;
  /** The Temporal CLI the deploy scripts and tests use. */
  cli: string;
  /** What setup-postgres-schema.sh and setup-namespace.sh printed. */
  setupOutput: string;
  postgres: { port: number; restart(): Promise<void> };
  server: { restart(): Promise<void> };
  prometheus: { url: string; query(expr: string): Promise<Array<{ labels: Record<string, string>; value: number }>>; targetsUp(): Promise<string[]> };
  workers: ClusterWorker[];
  /** Start `troupe worker --metrics` (scraped by Prometheus) with `env` over the cluster's connection settings. */
  startWorker(env: Record<string, string>, args?: string[], bin?: string): Promise<ClusterWorker>;
  /** Forget a worker (after it was killed or stopped): Prometheus stops scraping it. */
  dropWorker(worker: ClusterWorker): void;
  stop(): Promise<void>;
}

/** A long-running child process whose output is kept for error messages. */
interface Daemon {
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

function daemon(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; logFile?: string }): Daemon {
  const child = spawn(command, args, { env: opts.env ?? process.env, cwd: opts.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
    if (opts.logFile) fs.appendFileSync(opts.logFile, d);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

async function killGroup(d: Daemon, sig: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (d.child.exitCode !== null || d.child.signalCode !== null) return;
  try {
    process.kill(-d.child.pid!, sig);
  } catch {
    d.child.kill(sig);
  }
  await d.exited;
}

/** Run a command to its end; throws with its output when it fails. */
async function run(what: string, command: string, args: string[], env?: NodeJS.ProcessEnv, timeoutMs = 300_000): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { env: env ?? process.env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    throw new Error(CLUSTER_TEXTS.failed(what, e.code ?? null, `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message));
  }
}

async function waitFor(what: string, ms: number, ready: () => Promise<boolean>, output: () => string, exited?: () => number | null): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready().catch(() => false))) {
    const code = exited?.();
    if (code !== undefined && code !== null) throw new Error(CLUSTER_TEXTS.failed(what, code, output()));
    if (Date.now() > deadline) throw new Error(CLUSTER_TEXTS.notReady(what, ms, output()));
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The bin folder of the newest PostgreSQL the Debian packages installed, if any. */
function installedPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, command);
    if (dir && fs.existsSync(file)) return file;
  }
  return undefined;
}

/** A port that was free a moment ago, in 20000–32767 (see the server's ports in {@link startCluster}). */
async function freeServerPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    const server = net.createServer();
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
  }
}

/** Run as the `postgres` user when root (PostgreSQL refuses to run as root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** The folder of the Temporal server, its SQL tool, schema and config template (scripts/get-temporal-server.sh). */
export async function temporalServerDir(log: (line: string) => void = () => undefined): Promise<string> {
  const { stdout, stderr } = await execFileAsync('bash', [path.join(REPO, 'scripts', 'get-temporal-server.sh')], { timeout: 3_600_000, maxBuffer: 16 * 1024 * 1024 });
  for (const line of stderr.split('\n').filter(Boolean)) log(line);
  return stdout.trim();
}

/** The Debian packages the cluster needs, by what shows each is installed. */
const PACKAGES: Array<{ name: string; installed: () => boolean }> = [
  { name: 'postgresql', installed: () => installedPostgresBin() !== undefined },
  { name: 'prometheus', installed: () => onPath('prometheus') !== undefined },
  { name: 'netcat-openbsd', installed: () => onPath('nc') !== undefined },
];

/**
 * Install the packages of {@link PACKAGES} that are missing, with apt-get, when this process may (root
 * on a Debian-like machine); otherwise leave it to the checks of {@link startCluster}, which name the command.
 */
async function installMissingPackages(log: (line: string) => void): Promise<void> {
  const missing = PACKAGES.filter((p) => !p.installed()).map((p) => p.name);
  if (missing.length === 0 || process.getuid?.() !== 0 || !onPath('apt-get')) return;
  log(`installing ${missing.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get update', 'apt-get', ['update', '-qq'], env, 600_000);
  await run('apt-get install', 'apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], env, 600_000);
}

/** Start the whole deployment; see the file's comment. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  await installMissingPackages(log);
  const pgBin = installedPostgresBin();
  if (!pgBin) throw new Error(CLUSTER_TEXTS.noPostgres);
  const prometheusBin = onPath('prometheus');
  if (!prometheusBin) throw new Error(CLUSTER_TEXTS.noPrometheus);
  const nc = onPath('nc');
  if (!nc) throw new Error(CLUSTER_TEXTS.noNetcat);
  const serverDir = await temporalServerDir(log);
  const cli = process.env.TEMPORAL_CLI || (await findTemporalCli());

  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-cluster-')));
  fs.chmodSync(dir, 0o755);
  const stoppers: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    // the tools of the admin-tools image, by the names the deploy scripts call
    const tools = path.join(dir, 'tools');
    fs.mkdirSync(tools);
    fs.symlinkSync(cli, path.join(tools, 'temporal'));
    fs.symlinkSync(path.join(serverDir, 'temporal-sql-tool'), path.join(tools, 'temporal-sql-tool'));
    const toolPath = `${tools}${path.delimiter}${process.env.PATH ?? ''}`;

    // 1. PostgreSQL (the compose service `postgresql`: user temporal, password from POSTGRES_PASSWORD)
    const pgPort = await freePort();
    const pgData = path.join(dir, 'postgres');
    fs.mkdirSync(pgData, { mode: 0o700 });
    if (process.getuid?.() === 0) await run('chown', 'chown', ['postgres:postgres', pgData]);
    const pgLog = path.join(dir, 'postgres.log');
    fs.writeFileSync(pgLog, '');
    if (process.getuid?.() === 0) await run('chown', 'chown', ['postgres:postgres', pgLog]);
    // TCP connections must give the password, as the compose service's image asks (scram-sha-256)
    const pwFile = path.join(dir, 'postgres-password');
    fs.writeFileSync(pwFile, `${POSTGRES_PASSWORD}\n`, { mode: 0o644 });
    await run(
      'initdb',
      ...asPostgres(path.join(pgBin, 'initdb'), ['-D', pgData, '-U', 'temporal', `--pwfile=${pwFile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '--no-locale', '-E', 'UTF8']),
    );
    const pgCtl = (args: string[]) => run(`pg_ctl ${args[0]}`, ...asPostgres(path.join(pgBin, 'pg_ctl'), ['-D', pgData, '-l', pgLog, '-w', '-t', '120', ...args]));
    await pgCtl(['-o', `-p ${pgPort} -k ${pgData} -c listen_addresses=127.0.0.1 -c max_connections=200`, 'start']);
    stoppers.push(() => pgCtl(['-m', 'immediate', 'stop']).then(() => undefined));
    log(`PostgreSQL (${pgBin}) on 127.0.0.1:${pgPort}`);

    // 2. the schema job, run as it is
    const schemaEnv = {
      ...process.env,
      PATH: toolPath,
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: String(pgPort),
      POSTGRES_USER: 'temporal',
      SQL_PASSWORD: POSTGRES_PASSWORD,
      SCHEMA_ROOT: path.join(serverDir, 'schema', 'postgresql', 'v12'),
    };
    let setupOutput = await run('deploy/scripts/setup-postgres-schema.sh', 'sh', [path.join(DEPLOY, 'scripts', 'setup-postgres-schema.sh')], schemaEnv);
    log('setup-postgres-schema.sh done');

    // 3. the server, with the deploy folder's dynamic config
    const dynamicConfigFile = path.join(dir, 'dynamicconfig.yaml');
    const extra = opts.extraDynamicConfig ?? {};
    fs.writeFileSync(
      dynamicConfigFile,
      fs.readFileSync(path.join(DEPLOY, 'dynamicconfig', 'troupe.yaml'), 'utf8') +
        (Object.keys(extra).length > 0 ? `\n# added by the test harness (test/cluster/cluster.ts)\n${stringify(Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [{ value: v }]])))}` : ''),
    );
    // the server's own check of the file: it exits 0 even when it warns, so a warning fails here (a
    // misspelled key is otherwise ignored with one line in the server's log)
    const validated = await run('temporal-server validate-dynamic-config', path.join(serverDir, 'temporal-server'), ['validate-dynamic-config', dynamicConfigFile]);
    if (/warning/i.test(validated)) throw new Error(CLUSTER_TEXTS.badDynamicConfig(validated));
    const frontendPort = await freeServerPort();
    const config = parse(fs.readFileSync(path.join(serverDir, 'config', 'development-postgres12.yaml'), 'utf8')) as ServerConfig;
    for (const store of Object.values(config.persistence.datastores)) {
      store.sql.connectAddr = `127.0.0.1:${pgPort}`;
      store.sql.password = POSTGRES_PASSWORD;
    }
    // workflow and visibility writes of 100 runs at once need more than the template's 2 visibility connections
    config.persistence.datastores['postgres-visibility'].sql.maxConns = 10;
    config.persistence.datastores['postgres-visibility'].sql.maxIdleConns = 10;
    // The server's ports below 32768: the PostgreSQL schema keeps a member's port in a smallint
    // (cluster_membership.rpc_port), so a server on a port above 32767 dies at start with
    // "value ... is out of range for type smallint" (docs/deploying.md).
    for (const [name, service] of Object.entries(config.services)) {
      service.rpc.grpcPort = name === 'frontend' ? frontendPort : await freeServerPort();
      service.rpc.membershipPort = await freeServerPort();
      if (service.rpc.httpPort !== undefined) service.rpc.httpPort = await freeServerPort();
    }
    config.global.pprof = { port: 0 };
    config.global.metrics.prometheus.listenAddress = `127.0.0.1:${await freePort()}`;
    config.clusterMetadata.clusterInformation.active.rpcAddress = `127.0.0.1:${frontendPort}`;
    config.dynamicConfigClient = { filepath: dynamicConfigFile, pollInterval: '10s' };
    config.log = { stdout: true, level: 'warn' };
    const configDir = path.join(dir, 'config');
    fs.mkdirSync(configDir);
    const configFile = path.join(configDir, 'troupe-cluster.yaml');
    fs.writeFileSync(configFile, stringify(config));
    const address = `127.0.0.1:${frontendPort}`;
    const serverLog = path.join(dir, 'temporal-server.log');
    const health = () =>
      execFileAsync(cli, ['operator', 'cluster', 'health', '--address', address], { timeout: 5_000 }).then(
        (r) => r.stdout.includes('SERVING'),
        () => false,
      );
    let server: Daemon;
    const startServer = async () => {
      server = daemon(path.join(serverDir, 'temporal-server'), ['--config-file', configFile, '--allow-no-auth', 'start'], { logFile: serverLog });
      await waitFor('the Temporal server', 120_000, health, () => server.output(), () => server.child.exitCode);
    };
    await startServer();
    stoppers.push(() => killGroup(server, 'SIGTERM'));
    log(`Temporal server ${path.join(serverDir, 'temporal-server')} on ${address}`);

    // 4. the namespace job, run as it is
    const namespace = 'default';
    setupOutput += await run('deploy/scripts/setup-namespace.sh', 'sh', [path.join(DEPLOY, 'scripts', 'setup-namespace.sh')], {
      ...process.env,
      PATH: toolPath,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_RETENTION: '72h',
    });
    log('setup-namespace.sh done');

    // 5. Prometheus, its workers in a file the harness keeps current
    const targetsFile = path.join(dir, 'prometheus-targets.json');
    const workers: ClusterWorker[] = [];
    const writeTargets = () => {
      fs.writeFileSync(`${targetsFile}.tmp`, JSON.stringify([{ targets: workers.map((w) => w.metrics), labels: {} }]));
      fs.renameSync(`${targetsFile}.tmp`, targetsFile);
    };
    writeTargets();
    const promConfig = parse(fs.readFileSync(path.join(DEPLOY, 'prometheus', 'prometheus.yml'), 'utf8')) as PrometheusConfig;
    promConfig.global = { ...promConfig.global, scrape_interval: '1s', evaluation_interval: '1s' };
    for (const job of promConfig.scrape_configs) {
      if (!job.dns_sd_configs) continue;
      delete job.dns_sd_configs;
      job.file_sd_configs = [{ files: [targetsFile], refresh_interval: '1s' }];
    }
    const promConfigFile = path.join(dir, 'prometheus.yml');
    fs.writeFileSync(promConfigFile, stringify(promConfig));
    const promPort = await freePort();
    const prometheusUrl = `http://127.0.0.1:${promPort}`;
    const prometheus = daemon(
      prometheusBin,
      [`--config.file=${promConfigFile}`, `--storage.tsdb.path=${path.join(dir, 'prometheus-data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--storage.tsdb.retention.time=15d'],
      { logFile: path.join(dir, 'prometheus.log') },
    );
    stoppers.push(() => killGroup(prometheus, 'SIGTERM'));
    await waitFor('Prometheus', 60_000, async () => (await fetch(`${prometheusUrl}/-/ready`)).ok, () => prometheus.output());
    log(`Prometheus ${prometheusBin} on ${prometheusUrl}`);

    const query = async (expr: string) => {
      const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as { status: string; error?: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      if (body.status !== 'success') throw new Error(`Prometheus query ${expr}: ${body.error}`);
      return body.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
    };

    let workerCount = 0;
    const cluster: Cluster = {
      address,
      namespace,
      dir,
      cli,
      setupOutput,
      postgres: {
        port: pgPort,
        // a crash of the database: no checkpoint, recovery from the WAL on start
        restart: () => pgCtl(['-m', 'immediate', 'restart']).then(() => undefined),
      },
      server: {
        restart: async () => {
          await killGroup(server);
          await startServer();
        },
      },
      prometheus: {
        url: prometheusUrl,
        query,
        targetsUp: async () => (await query('up == 1')).map((r) => r.labels.instance),
      },
      workers,
      async startWorker(env, args = [], bin) {
        const name = `worker-${++workerCount}`;
        const metrics = `127.0.0.1:${await freePort()}`;
        const w = await startWorkerProcess(
          { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, ...env },
          180_000,
          ['--metrics', metrics, ...args],
          process.env,
          bin,
        );
        const worker: ClusterWorker = { ...w, name, metrics };
        workers.push(worker);
        writeTargets();
        return worker;
      },
      dropWorker(worker) {
        const i = workers.indexOf(worker);
        if (i >= 0) workers.splice(i, 1);
        writeTargets();
      },
      stop: async () => {
        for (const w of workers) await w.kill().catch(() => undefined);
        await stop();
      },
    };
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The parts of the server's config file the harness changes. */
interface ServerConfig {
  log: unknown;
  persistence: { datastores: Record<string, { sql: { connectAddr: string; password: string; maxConns: number; maxIdleConns: number } }> };
  global: { pprof: unknown; metrics: { prometheus: { listenAddress: string } } };
  services: Record<string, { rpc: { grpcPort: number; membershipPort: number; httpPort?: number } }>;
  clusterMetadata: { clusterInformation: { active: { rpcAddress: string } } };
  dynamicConfigClient: unknown;
}

/** The parts of a Prometheus config the harness changes. */
interface PrometheusConfig {
  global?: Record<string, unknown>;
  scrape_configs: Array<{ job_name: string; dns_sd_configs?: unknown; file_sd_configs?: unknown }>;
}
