/**
 * Where the chaos run (RELIABILITY.md §1) runs and what it breaks: a Temporal service, the way to
 * start `troupe worker` processes against it, and the way to restart its server and database. The
 * driver's own is a dev server persisted to a SQLite file; a cluster (Temporal on PostgreSQL, several
 * workers) is another target with the same faults.
 */
import { FAST_LOCAL_DYNAMIC_CONFIG, freePort, startDevServer, type DevServer } from '../../src/dev/temporal-server';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

export type { WorkerProcess } from '../helpers/worker-process';

/** The faults the driver injects, each at a seeded moment while model calls are in flight. */
export const FAULT_KINDS = ['worker_kill', 'server_restart', 'database_restart', 'worker_added'] as const;

/**
 * `worker_kill`: SIGKILL one running worker (chosen by the seeded random) and start one in its
 * place; `server_restart`: kill the Temporal server hard and start it again; `database_restart`:
 * restart the database under the server; `worker_added`: start one more worker, kept to the end.
 */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What each fault is, as the report's fault table names it, when the target does not say. */
export const DEFAULT_FAULT_LABELS: Record<FaultKind, string> = {
  worker_kill: 'worker SIGKILL + restart',
  server_restart: 'Temporal server SIGKILL + restart',
  database_restart: 'database restart',
  worker_added: 'worker added (kept to the end)',
};

/**
 * A Temporal service the chaos run can drive and break. Its workers run on the driver's machine:
 * they read the driver's tools file, file receipts in its temporary folder and call its stub model
 * on 127.0.0.1.
 */
export interface ChaosTarget {
  /** The Temporal frontend (`host:port`); the same across restarts. */
  address: string;
  namespace: string;
  /**
   * Start one `troupe worker` on `queue` and resolve once it polls. `env` (`TROUPE_TASK_QUEUE` set
   * to `queue`, the stub model's URL and key, the shutdown grace) and `args` (`--tools <file>`) come
   * from the driver; the target adds what reaches its service (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, ...).
   */
  startWorker(queue: string, env: Record<string, string>, args: string[]): Promise<WorkerProcess>;
  /** Kill the Temporal server hard and start it again on the same address; resolves once it is back. */
  restartServer(): Promise<void>;
  /** Restart the database under the server (PostgreSQL); a plan with `database_restart` needs it. */
  restartDatabase?(): Promise<void>;
  /** What each fault is on this target, for the report ('PostgreSQL restart (pg_ctl restart -m immediate)'). */
  faultLabels?: Partial<Record<FaultKind, string>>;
}

/** The driver's own target: a dev server persisted to a SQLite file, restarted on the same file and port. */
export interface DevServerTarget extends ChaosTarget {
  dbFile: string;
  close(): Promise<void>;
}

/** Start a dev server persisted to `dbFile` on a free port, as a chaos target. */
export async function startDevServerTarget(dbFile: string): Promise<DevServerTarget> {
  const port = await freePort();
  const serverOptions = { port, dbFile, headless: true, dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG } };
  let server: DevServer = await startDevServer(serverOptions);
  return {
    address: server.address,
    namespace: 'default',
    dbFile,
    startWorker: (queue, env, args) => startWorkerProcess({ TEMPORAL_ADDRESS: server.address, TROUPE_TASK_QUEUE: queue, ...env }, 120_000, args),
    restartServer: async () => {
      await killServer(server);
      server = await startDevServer(serverOptions);
    },
    faultLabels: { server_restart: 'dev server SIGKILL + restart (same SQLite file)' },
    close: () => server.stop(),
  };
}

/** Kill the dev server the hard way (SIGKILL to its process group) and wait for it to go. */
async function killServer(server: DevServer): Promise<void> {
  try {
    process.kill(-server.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  await server.stop();
}
