/**
 * Parent side of the benchmark stub LLM: forks {@link ./stub-process} (through tsx), and exposes its
 * IPC commands as promises. The child is killed with the parent.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { ChatBody } from './direct';
import type { StubCommand, StubReady, ToolScript } from './stub-process';

/** A request the stub received, as the baselines replay it. */
export interface RecordedRequest {
  agent: string;
  body: ChatBody;
}

/** A running stub LLM in its own process. */
export interface BenchStub {
  url: string;
  pid: number;
  /** Delay before each reply, and the reply length in characters (~1 KB by default). */
  configure(delayMs: number, replyChars?: number): Promise<void>;
  /** B7: replies with tool calls for one agent (undefined: plain replies again). */
  toolCalls(script: ToolScript | undefined): Promise<void>;
  /** Forgets recorded requests and arrival times. */
  reset(): Promise<void>;
  /** Arrival times (epoch ms, sub-ms resolution) of the requests since the last reset. */
  arrivals(): Promise<number[]>;
  /** Requests since the last reset: the sending agent (`x-troupe-agent`) and the JSON body. */
  requests(): Promise<RecordedRequest[]>;
  /** Most requests open at once since the last reset. */
  maxConcurrent(): Promise<number>;
  close(): Promise<void>;
}

type Payload<C> = C extends { op: infer _ } ? Omit<C, 'id'> : never;

/** Forks the stub process and waits until it listens. */
export async function startBenchStub(): Promise<BenchStub> {
  const child: ChildProcess = fork(path.join(__dirname, 'stub-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  const ready = await new Promise<StubReady>((resolve, reject) => {
    child.once('message', (m) => resolve(m as StubReady));
    child.once('exit', (code) => reject(new Error(`bench stub exited with ${code} before it was ready`)));
  });
  let seq = 0;
  const waiting = new Map<number, (r: unknown) => void>();
  child.on('message', (m: { id?: number; result?: unknown }) => {
    if (m.id === undefined) return;
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  const call = <R>(cmd: Payload<StubCommand>): Promise<R> =>
    new Promise<R>((resolve) => {
      const id = ++seq;
      waiting.set(id, resolve as (r: unknown) => void);
      child.send({ ...cmd, id });
    });
  return {
    url: ready.url,
    pid: ready.pid,
    configure: async (delayMs, replyChars = 1000) => {
      await call({ op: 'config', delayMs, replyChars });
    },
    toolCalls: async (script) => {
      await call({ op: 'toolCalls', script });
    },
    reset: async () => {
      await call({ op: 'reset' });
    },
    arrivals: () => call<number[]>({ op: 'arrivals' }),
    requests: () => call<RecordedRequest[]>({ op: 'requests' }),
    maxConcurrent: () => call<number>({ op: 'maxConcurrent' }),
    close: async () => {
      process.removeListener('exit', killChild);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      const timer = setTimeout(killChild, 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
