/**
 * A troupe worker as a separate OS process (`node bin/troupe.js worker`), so tests can SIGKILL it
 * mid-run the way a crash would, and start another one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Kill the whole process group with SIGKILL and wait for it to exit. */
  kill(): Promise<void>;
  /** Stop gracefully (SIGTERM) and wait. */
  stop(): Promise<void>;
}

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');

/** Start `troupe worker` and wait until it polls its task queue. */
export async function startWorkerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: { ...process.env, ...env },
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
