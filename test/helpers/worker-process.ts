/**
 * A troupe worker as a separate OS process (`node bin/troupe.js worker`), so tests can SIGKILL it
 * mid-run the way a crash would, and start another one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { startStubLlm, type StubLlm } from './stub-llm';
import { connectClient, testAddress, type TestClient } from './temporal';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Kill the whole process group with SIGKILL and wait for it to exit. */
  kill(): Promise<void>;
  /** Stop gracefully (SIGTERM) and wait. */
  stop(): Promise<void>;
}

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');

/**
 * Start `troupe worker` and wait until it polls its task queue. Its environment is `base` (default:
 * this process's) with `env` over it; `bin` is the `troupe` entry point (default: this clone's
 * bin/troupe.js; another release's for an upgrade).
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
  args: string[] = [],
  base: NodeJS.ProcessEnv = process.env,
  bin: string = BIN,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [bin, 'worker', ...args], {
    env: { ...base, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), timeoutMs);
    const check = () => {
      if (output.includes('troupe worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, sig);
    } catch {
      child.kill(sig);
    }
    await exited;
  };
  return { child, output: () => output, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

/**
 * Register the lifecycle of a process-worker suite (a stub LLM, a client, and worker processes
 * killed afterwards); `spawn` starts `troupe worker` on a task queue against the stub.
 */
export function processWorkerSuite() {
  const suite = {
    stub: undefined as unknown as StubLlm,
    tc: undefined as unknown as TestClient,
    workers: [] as WorkerProcess[],
    /** Start `troupe worker [args]` on a task queue against the stub. */
    async spawn(taskQueue: string, args: string[] = []): Promise<WorkerProcess> {
      const w = await startWorkerProcess(
        { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: taskQueue, OPENAI_BASE_URL: suite.stub.url, OPENAI_API_KEY: 'test-key' },
        60_000,
        args,
      );
      suite.workers.push(w);
      return w;
    },
  };
  beforeAll(async () => {
    suite.stub = await startStubLlm();
    suite.tc = await connectClient();
  });
  afterAll(async () => {
    for (const w of suite.workers) await w.kill();
    await suite.tc?.close();
    await suite.stub?.close();
  });
  return suite;
}
