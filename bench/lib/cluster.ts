/**
 * The compose deployment for a benchmark (B16): the processes of test/cluster/cluster.ts (PostgreSQL,
 * the Temporal server on it, Prometheus, `troupe worker --metrics`), plus what a benchmark needs of
 * them: a client, the process ids to meter CPU of, and floor workers, each alone in a process as a
 * deployed worker is (lib/worker-process.ts, from the prebuilt floor bundle).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startCluster, type Cluster } from '../../test/cluster/cluster';
import { forkChild, type Child } from './child';
import { ticksPerSecond } from './proc';
import type { Bundles } from './stack';
import type { RecordedRequest } from './stub-client';
import type { WorkerReady } from './worker-process';

/** A worker process of the benchmark, troupe's or the floor's. */
export interface BenchWorker {
  pid: number;
  stop(): Promise<void>;
}

/** A started cluster with a client; {@link BenchCluster.close} stops every process it started. */
export interface BenchCluster {
  cluster: Cluster;
  client: Client;
  /** The Temporal server's process. */
  serverPid: number;
  /** Prometheus, which scrapes the troupe workers every second. */
  prometheusPid: number | undefined;
  /** CPU ms PostgreSQL spent so far: the postmaster, its live backends and those that ended. */
  postgresCpuMs(): number | undefined;
  /** `troupe worker --metrics` on `taskQueue`, its model the stub, as the cluster test starts it. */
  startTroupeWorker(taskQueue: string): Promise<BenchWorker>;
  /** A worker of the floor workflow alone in a process, replaying the recorded requests. */
  startFloorWorker(taskQueue: string): Promise<BenchWorker>;
  close(): Promise<void>;
}

/** The fields of /proc/<pid>/stat after the command name, or undefined when the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function pids(): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

/** The first process whose command line (arguments joined by spaces) contains every one of `parts`. */
function findProcess(parts: string[]): number | undefined {
  for (const pid of pids()) {
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (parts.every((p) => cmdline.includes(p))) return pid;
  }
  return undefined;
}

/**
 * CPU ms of a process tree one level deep: the process's own and its reaped children's time
 * (utime, stime, cutime, cstime) and its live children's own. PostgreSQL runs one backend process
 * per connection under the postmaster; the server keeps its connections, so few end unseen.
 */
function treeCpuMs(root: number): number | undefined {
  const own = statFields(root);
  if (!own) return undefined;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of pids()) {
    const f = statFields(pid);
    if (f && Number(f[1]) === root) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / ticksPerSecond();
}

/** Options of {@link startBenchCluster}. */
export interface BenchClusterOptions {
  bundles: Bundles;
  stubUrl: string;
  requests: RecordedRequest[];
  log(line: string): void;
}

/** Starts the deployment (see test/cluster/cluster.ts for what it runs and what differs from compose). */
export async function startBenchCluster(opts: BenchClusterOptions): Promise<BenchCluster> {
  const cluster = await startCluster({ log: (line) => opts.log(`cluster: ${line}`) });
  const floors: Array<Child<WorkerReady>> = [];
  try {
    const connection = await Connection.connect({ address: cluster.address });
    const client = new Client({ connection, namespace: cluster.namespace });
    const serverPid = findProcess(['temporal-server', cluster.dir]);
    if (serverPid === undefined) throw new Error(`no temporal-server process with ${cluster.dir} in its command line`);
    const prometheusPid = findProcess(['prometheus', `--config.file=${cluster.dir}`]);
    const postmasterPid = Number(fs.readFileSync(path.join(cluster.dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const bundleFile = path.join(cluster.dir, 'floor-bundle.json');
    fs.writeFileSync(bundleFile, JSON.stringify({ code: opts.bundles.floor.code, sourceMap: opts.bundles.floor.sourceMap }));
    const requestsFile = path.join(cluster.dir, 'floor-requests.json');
    fs.writeFileSync(requestsFile, JSON.stringify(opts.requests));
    return {
      cluster,
      client,
      serverPid,
      prometheusPid,
      postgresCpuMs: () => treeCpuMs(postmasterPid),
      async startTroupeWorker(taskQueue) {
        const w = await cluster.startWorker({ TROUPE_TASK_QUEUE: taskQueue, OPENAI_BASE_URL: opts.stubUrl, OPENAI_API_KEY: 'bench-key', TROUPE_LOG_LEVEL: 'WARN' });
        return {
          pid: w.child.pid!,
          stop: async () => {
            await w.stop();
            cluster.dropWorker(w);
          },
        };
      },
      async startFloorWorker(taskQueue) {
        const child = await forkChild<WorkerReady>(
          path.join(__dirname, 'worker-process.ts'),
          ['floor', cluster.address, cluster.namespace, taskQueue, opts.stubUrl, bundleFile, requestsFile],
          'B16 floor worker',
        );
        floors.push(child);
        return { pid: child.ready.pid, stop: () => child.close() };
      },
      async close() {
        for (const f of floors) await f.close().catch(() => undefined);
        await connection.close().catch(() => undefined);
        await cluster.stop();
      },
    };
  } catch (err) {
    for (const f of floors) await f.close().catch(() => undefined);
    await cluster.stop();
    throw err;
  }
}
