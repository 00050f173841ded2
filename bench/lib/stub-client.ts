/**
 * Parent side of the benchmark stub LLM: forks {@link ./stub-process} (through tsx), and exposes its
 * IPC commands as promises. The child is killed with the parent.
 */
import * as path from 'node:path';
import { forkChild } from './child';
import type { ChatBody } from './direct';
import type { StubStreamOptions } from '../../test/helpers/stub-llm';
import type { FirstText, StubCommand, StubReady, ToolScript } from './stub-process';

/** A request the stub received, as the baselines replay it. */
export interface RecordedRequest {
  agent: string;
  body: ChatBody;
}

/** The JSON length of each recorded request (what the floor's `activity-payload` steps carry). */
export function requestBytes(requests: readonly RecordedRequest[]): number[] {
  return requests.map((r) => JSON.stringify(r.body).length);
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
  /** B10: how streamed replies are sent (chunk size and the delay between chunks). */
  stream(options: StubStreamOptions): Promise<void>;
  /** B10: each request since the last reset, with the time its first content chunk was written. */
  firstTexts(): Promise<FirstText[]>;
  close(): Promise<void>;
}

type Payload<C> = C extends { op: infer _ } ? Omit<C, 'id'> : never;

/** Forks the stub process and waits until it listens. */
export async function startBenchStub(): Promise<BenchStub> {
  const child = await forkChild<StubReady>(path.join(__dirname, 'stub-process.ts'), [], 'bench stub');
  const { ready } = child;
  const call = <R>(cmd: Payload<StubCommand>): Promise<R> => child.request<R>(cmd);
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
    stream: async (options) => {
      await call({ op: 'stream', options });
    },
    firstTexts: () => call<FirstText[]>({ op: 'firstTexts' }),
    close: () => child.close(),
  };
}
