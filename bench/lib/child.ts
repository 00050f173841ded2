/**
 * A bench helper process (the stub, the B6 worker, the B8 followers): forked through tsx with an IPC
 * channel, ready once it sends its first message, then answering numbered requests. The child is
 * killed with the parent, and `close` disconnects it (killing it after a grace period).
 */
import { fork, type ChildProcess } from 'node:child_process';

/** A forked helper process. */
export interface Child<Ready> {
  /** The child's first message. */
  ready: Ready;
  /** Wall ms from the fork to that message. */
  forkToReadyMs: number;
  process: ChildProcess;
  /** Sends `{ ...command, id }` and resolves with the `result` of the child's answer `{ id, result }`. */
  request<R>(command: object): Promise<R>;
  close(graceMs?: number): Promise<void>;
}

/** Forks `file` (a TypeScript module) with `args` (and `env`) and waits for its first message. */
export async function forkChild<Ready>(file: string, args: string[], name: string, execArgv: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<Child<Ready>> {
  const t0 = performance.now();
  const child = fork(file, args, { execArgv: ['--import', 'tsx', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  const forkToReadyMs = performance.now() - t0;
  let seq = 0;
  const waiting = new Map<number, (r: unknown) => void>();
  child.on('message', (m: { id?: number; result?: unknown }) => {
    if (m.id === undefined) return;
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  return {
    ready,
    forkToReadyMs,
    process: child,
    request: <R>(command: object) =>
      new Promise<R>((resolve) => {
        const id = ++seq;
        waiting.set(id, resolve as (r: unknown) => void);
        child.send({ ...command, id });
      }),
    async close(graceMs = 3000) {
      process.removeListener('exit', kill);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      const timer = setTimeout(kill, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
