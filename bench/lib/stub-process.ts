/**
 * Child-process entry that runs the test stub LLM (test/helpers/stub-llm.ts) for the benchmarks, so
 * the "LLM" is a separate process as in production and its CPU is metered apart from the worker.
 * Every request gets a fixed-size reply after the configured delay; arrival times are recorded
 * with sub-millisecond resolution. Controlled over IPC by {@link ./stub-client}.
 */
import { performance } from 'node:perf_hooks';
import { startStubLlm, type StubResponder, type StubStreamOptions } from '../../test/helpers/stub-llm';

/** A command the parent sends. */
export type StubCommand =
  | { id: number; op: 'config'; delayMs: number; replyChars: number }
  | { id: number; op: 'toolCalls'; script?: ToolScript }
  | { id: number; op: 'reset' }
  | { id: number; op: 'arrivals' }
  | { id: number; op: 'requests' }
  | { id: number; op: 'maxConcurrent' }
  | { id: number; op: 'stream'; options: StubStreamOptions }
  | { id: number; op: 'firstTexts' };

/** B10: when a streamed request arrived and when its first content chunk was written (epoch ms). */
export interface FirstText {
  agent: string;
  startedAt: number;
  firstTextAt?: number;
}

/**
 * B7: the model asks `agent` to call `tool` once per reply, `calls` times in a dispatch (counted from
 * the tool results in the request), then answers with text.
 */
export interface ToolScript {
  agent: string;
  calls: number;
  tool: string;
  arguments: Record<string, unknown>;
}

/** The first message the child sends once it listens. */
export interface StubReady {
  ready: true;
  url: string;
  pid: number;
}

const FILLER =
  'The essay argues its thesis in three parts, each supported by evidence and a counter-argument. ';

/** A deterministic reply text of about `chars` characters that still differs per request. */
export function replyText(agent: string, n: number, chars: number): string {
  const head = `${agent} reply ${n}. score: ${n % 100}. `;
  const body = FILLER.repeat(Math.ceil(Math.max(0, chars - head.length) / FILLER.length));
  return (head + body).slice(0, Math.max(chars, head.length));
}

async function main(): Promise<void> {
  const stub = await startStubLlm();
  let delayMs = 0;
  let replyChars = 1000;
  let arrivals: number[] = [];
  let tools: ToolScript | undefined;
  const responder: StubResponder = (req) => {
    arrivals.push(performance.timeOrigin + performance.now());
    const delay = delayMs > 0 ? delayMs : undefined;
    if (tools && req.agent === tools.agent && req.messages.filter((m) => m.role === 'tool').length < tools.calls) {
      return { toolCalls: [{ name: tools.tool, arguments: tools.arguments }], delayMs: delay };
    }
    return { text: replyText(req.agent, req.n, replyChars), delayMs: delay };
  };
  stub.respond(responder);

  const reply = (id: number, result: unknown) => process.send?.({ id, result });
  process.on('message', (cmd: StubCommand) => {
    switch (cmd.op) {
      case 'config':
        delayMs = cmd.delayMs;
        replyChars = cmd.replyChars;
        return reply(cmd.id, true);
      case 'toolCalls':
        tools = cmd.script;
        return reply(cmd.id, true);
      case 'reset':
        stub.reset();
        stub.respond(responder);
        arrivals = [];
        return reply(cmd.id, true);
      case 'arrivals':
        return reply(cmd.id, arrivals);
      case 'requests':
        return reply(
          cmd.id,
          stub.requests.map((r) => ({ agent: r.agent, body: r.body })),
        );
      case 'maxConcurrent':
        return reply(cmd.id, stub.maxConcurrent());
      case 'stream':
        stub.setStream(cmd.options);
        return reply(cmd.id, true);
      case 'firstTexts':
        return reply(
          cmd.id,
          stub.requests.map((r): FirstText => ({ agent: r.agent, startedAt: r.startedAt, ...(r.firstTextAt !== undefined ? { firstTextAt: r.firstTextAt } : {}) })),
        );
      default: {
        const never: never = cmd;
        return never;
      }
    }
  });
  process.on('disconnect', () => {
    void stub.close().finally(() => process.exit(0));
  });
  const ready: StubReady = { ready: true, url: stub.url, pid: process.pid };
  process.send?.(ready);
}

void main();
