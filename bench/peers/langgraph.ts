/**
 * The peer in B1 and B3: the same writer/critic review loop as a LangGraph.js graph (two nodes and a
 * conditional back edge), each node sending the next recorded request to the stub with the same
 * openai client as the baselines, checkpointed after every step (`durability: "sync"`) by the
 * in-memory saver or the SQLite saver on a file. It runs in the benchmark process, as an in-process
 * framework does. Its packages are not troupe's: `npm --prefix bench/peers ci` installs them, and
 * without them the rows say so ({@link loadLangGraph}).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { directChat } from '../lib/direct';
import type { RecordedRequest } from '../lib/stub-client';

/** Which checkpointer the peer graph uses. */
export type PeerSaver = 'memory' | 'sqlite';

/** A compiled peer review loop: `run(steps)` runs one thread of `steps` model calls. */
export interface PeerLoop {
  saver: PeerSaver;
  run(steps: number, offset?: number): Promise<void>;
  close(): void;
}

/** Versions of the installed peer packages, or undefined when they are not installed. */
export function peerVersions(): Record<string, string> | undefined {
  try {
    const v = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
    return { '@langchain/langgraph': v('@langchain/langgraph'), '@langchain/langgraph-checkpoint-sqlite': v('@langchain/langgraph-checkpoint-sqlite') };
  } catch {
    return undefined;
  }
}

/** What the bench uses of LangGraph.js, typed here so the suite type-checks without the package. */
interface CompiledLoop {
  invoke(input: LoopState, config: { configurable: { thread_id: string }; recursionLimit: number; durability: 'sync' }): Promise<unknown>;
}
interface LoopBuilder {
  addNode(name: string, fn: (s: LoopState) => Promise<Partial<LoopState>>): LoopBuilder;
  addEdge(from: string, to: string): LoopBuilder;
  addConditionalEdges(from: string, route: (s: LoopState) => string, targets: string[]): LoopBuilder;
  compile(options: { checkpointer: unknown }): CompiledLoop;
}
interface LangGraph {
  Annotation: { Root(fields: Record<string, unknown>): unknown } & (() => unknown);
  StateGraph: new (state: unknown) => LoopBuilder;
  MemorySaver: new () => unknown;
  START: string;
  END: string;
}
interface SqliteModule {
  SqliteSaver: { fromConnString(path: string): unknown };
}
interface LoopState {
  step: number;
  steps: number;
  offset: number;
  last: string;
}

/** Loads LangGraph.js from bench/peers/node_modules; undefined when it is not installed. */
export function loadLangGraph(): { lg: LangGraph; sqlite: SqliteModule } | undefined {
  try {
    return { lg: require('@langchain/langgraph') as LangGraph, sqlite: require('@langchain/langgraph-checkpoint-sqlite') as SqliteModule };
  } catch {
    return undefined;
  }
}

/** The review loop as a LangGraph.js graph with `saver`, replaying `requests` through `client`. */
export function peerLoop(saver: PeerSaver, client: OpenAI, requests: readonly RecordedRequest[]): PeerLoop | undefined {
  const loaded = loadLangGraph();
  if (!loaded) return undefined;
  const { Annotation, END, MemorySaver, START, StateGraph } = loaded.lg;
  const State = Annotation.Root({ step: Annotation(), steps: Annotation(), offset: Annotation(), last: Annotation() });
  const call = (agent: string) => async (s: LoopState) => {
    const r = requests[(s.offset + s.step) % requests.length];
    const text = await directChat(client, r.body, agent);
    return { step: s.step + 1, last: text };
  };
  let dir: string | undefined;
  let checkpointer: unknown;
  if (saver === 'memory') {
    checkpointer = new MemorySaver();
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-langgraph-'));
    checkpointer = loaded.sqlite.SqliteSaver.fromConnString(path.join(dir, 'checkpoints.db'));
  }
  const graph = new StateGraph(State)
    .addNode('writer', call('writer'))
    .addNode('critic', call('critic'))
    .addEdge(START, 'writer')
    .addEdge('writer', 'critic')
    .addConditionalEdges('critic', (s) => (s.step < s.steps ? 'writer' : END), ['writer', END])
    .compile({ checkpointer });
  return {
    saver,
    async run(steps, offset = 0) {
      await graph.invoke(
        { step: 0, steps, offset, last: '' },
        { configurable: { thread_id: randomUUID() }, recursionLimit: steps + 10, durability: 'sync' },
      );
    },
    close() {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
