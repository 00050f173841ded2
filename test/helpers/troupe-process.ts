/**
 * A long-running `troupe <command>` as a separate OS process (`node bin/troupe.js …`), started
 * and waited for until its output shows it is ready: for commands such as `troupe codec-server`
 * that serve until a signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');

/** A running troupe process. */
export interface TroupeProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr interleaved). */
  output(): string;
  /** The first match of `pattern` in what it printed once ready. */
  match: RegExpExecArray;
  /** SIGTERM, and wait for it to exit; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Start `troupe <args>` with `env` over the current environment; resolves once stdout matches `ready`. */
export async function startTroupeProcess(args: string[], env: Record<string, string | undefined>, ready: RegExp, timeoutMs = 60_000): Promise<TroupeProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`troupe ${args.join(' ')} did not get ready:\n${output}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      output += d;
      stdout += d;
      const m = ready.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`troupe ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    match,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
