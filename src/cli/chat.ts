/**
 * `troupe chat <role.yaml> [--continue ID] [--plugins file]`: a terminal conversation with a team
 * (docs/cli.md, "troupe chat"; docs/semantics.md, "Teams that go on"). Each line typed is a task,
 * run as a continuation of the run before it (the first line starts a thread, or continues `ID`),
 * followed with the live view `troupe run` draws; the team's final text is printed, then the prompt
 * returns. A request the run opens is asked at the prompt and decided in place through the run's
 * decision Updates, a gate showing what will run and the digest the decision names. Ctrl+C stops
 * the run (`stop`), again cancels it, a third time leaves the chat; `/exit` or Ctrl+D ends it.
 * Exit 0 when the chat ends, 1 for config, connection or continuation errors, 130 when left mid-run.
 */
import { ContinueRefusedError, checkContinuation, decideRequest, exportTeamState, followRun, sendSignal, startRun, type RunHandle } from '../client';
import type { Client } from '@temporalio/client';
import type { CompiledGraph } from '../core/graph/types';
import type { PendingRequest } from '../core/humans/requests';
import type { RunResult } from '../core/ending/result';
import { stringFlag, type ParsedArgs } from './args';
import { CHAT_TEXTS, parseChatLine, parseDecision, requestLines, requestPrompt } from './chat-lines';
import { ChatTerminal } from './chat-terminal';
import { connectOrExplain } from './connect';
import { defaultDecider } from './control';
import { createFollowView, followMode } from './follow-view';
import { err, out } from './io';
import { INTERRUPTED_EXIT_CODE } from './live-texts';
import { loadRoleToRun, printResult } from './run';
import { CLI_RUN_TEXTS } from './run-texts';
import { CLI_TEXTS } from './texts';

/** Refusals of a decision after which its request is not asked again: it is no longer open. */
const CLOSED_REFUSALS: readonly string[] = ['decided', 'ended', 'not_pending', 'none_pending'];

/** The run being followed: its handle, its Ctrl+C count, and how to stop following it. */
interface Current {
  handle: RunHandle;
  interrupts: number;
  leave: AbortController;
  /** Hold the live view, write lines, draw again. */
  say(lines: string[]): void;
}

/** A chat with one team: the runs of one thread, one after the other. */
class Chat {
  private readonly terminal = new ChatTerminal(() => this.interrupt());
  private readonly by = defaultDecider();
  private current: Current | undefined;

  constructor(
    private readonly client: Client,
    private readonly graph: CompiledGraph,
    private readonly taskQueue: string,
    /** The run the next line continues, and the thread. */
    private previous: string | undefined,
    private thread: string | undefined,
  ) {}

  /** Read lines until `/exit` or the end of input; the exit code. */
  async talk(): Promise<number> {
    try {
      for (;;) {
        const typed = await this.terminal.ask(CHAT_TEXTS.prompt);
        if (typed.kind === 'interrupt') {
          out(CHAT_TEXTS.atPrompt);
          continue;
        }
        const line = typed.kind === 'eof' ? ({ kind: 'exit' } as const) : parseChatLine(typed.text);
        if (line.kind === 'exit') break;
        if (line.kind === 'help') out(CHAT_TEXTS.help);
        if (line.kind === 'unknown') out(CHAT_TEXTS.unknownCommand(line.command));
        if (line.kind !== 'task') continue;
        const handle = await this.start(line.text);
        if (!handle) return 1;
        if ((await this.follow(handle)) === 'left') return INTERRUPTED_EXIT_CODE;
      }
      out(CHAT_TEXTS.closing(this.thread));
      return 0;
    } finally {
      this.terminal.close();
    }
  }

  /** Start the run of a task: a continuation of the run before, or a thread's first; undefined when refused. */
  private async start(task: string): Promise<RunHandle | undefined> {
    const from = this.previous;
    try {
      const handle = await startRun(this.client, {
        role: this.graph,
        task,
        taskQueue: this.taskQueue,
        ...(from !== undefined ? { continueFrom: from } : {}),
        onWarning: (w) => err(CLI_TEXTS.warning(w)),
      });
      this.thread ??= handle.workflowId;
      this.previous = handle.workflowId;
      out(CHAT_TEXTS.started(handle.workflowId, from));
      return handle;
    } catch (e) {
      if (!(e instanceof ContinueRefusedError)) throw e;
      for (const p of e.problems) err(CLI_RUN_TEXTS.cannotContinue(p));
      return undefined;
    }
  }

  /** Follow a run to its end with the live view, asking its requests; 'left' after a third Ctrl+C. */
  private async follow(handle: RunHandle): Promise<'ended' | 'left'> {
    const id = handle.workflowId;
    const mode = followMode(false, process.stdout);
    const view = createFollowView(id, mode, { out, err, stream: process.stdout });
    const leave = new AbortController();
    const say = (lines: string[]) => {
      view.hold();
      for (const l of lines) out(l);
      view.release();
    };
    this.current = { handle, interrupts: 0, leave, say };
    let result: RunResult;
    try {
      result = await followRun(
        handle,
        (e) => {
          view.onEvent(e);
          if (e.kind !== 'request') return undefined;
          return this.decide(handle, e.request, view);
        },
        { signal: leave.signal, liveText: mode === 'live' },
      );
    } catch (e) {
      view.close();
      if (!leave.signal.aborted) throw e;
      err(CHAT_TEXTS.left(id));
      return 'left';
    } finally {
      this.current = undefined;
    }
    view.close(result);
    // model text is untrusted: printable, as on a terminal, wherever the chat writes
    printResult(result, out, true);
    return 'ended';
  }

  /** Ask request `r` at the prompt until a decision is applied or the request is no longer open. */
  private async decide(handle: RunHandle, r: PendingRequest, view: { hold(): void; release(): void }): Promise<void> {
    // a run being stopped ends with its requests open: nobody is asked any more
    if ((this.current?.interrupts ?? 0) > 0) return;
    view.hold();
    try {
      for (const l of requestLines(r, Math.max(20, (process.stdout.columns ?? 100) - 6))) out(l);
      for (;;) {
        const typed = await this.terminal.ask(requestPrompt(r));
        if (typed.kind === 'eof') this.interrupt();
        if (typed.kind !== 'line') return;
        const decision = parseDecision(r, typed.text);
        if (decision.kind === 'again') {
          out(decision.hint);
          continue;
        }
        const answered = await decideRequest(handle, r, { ...decision, by: this.by });
        const digest = decision.kind === 'answer' ? undefined : r.digest;
        const line = CLI_RUN_TEXTS.decided(decision.kind, r.id, this.by, handle.workflowId, digest, answered.text);
        if (answered.outcome !== 'refused') {
          out(line);
          return;
        }
        err(line);
        if (CLOSED_REFUSALS.includes(answered.refusal.code)) return;
      }
    } finally {
      view.release();
    }
  }

  /** Ctrl+C: at the prompt, a reminder; in a run, stop it, then cancel it, then leave. */
  private interrupt(): void {
    const run = this.current;
    if (!run) {
      this.terminal.interruptAsk();
      return;
    }
    // a question open is left first: what is said next is drawn under it
    this.terminal.interruptAsk();
    run.interrupts += 1;
    const id = run.handle.workflowId;
    const failed = (what: 'stop' | 'cancel') => (e: unknown) => run.say([CHAT_TEXTS.couldNot(what, id, (e as Error).message)]);
    if (run.interrupts === 1) {
      run.say([CHAT_TEXTS.stopping(id)]);
      sendSignal(run.handle, 'stop', { reason: CHAT_TEXTS.stopReason }).catch(failed('stop'));
    } else if (run.interrupts === 2) {
      run.say([CHAT_TEXTS.cancelling(id)]);
      run.handle.cancel().catch(failed('cancel'));
    } else run.leave.abort();
  }
}

/** Run `troupe chat`. */
export async function run(args: ParsedArgs): Promise<number> {
  const graph = loadRoleToRun(args.positionals[0], args);
  if (!graph) return 1;
  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    const continueFrom = stringFlag(args, 'continue');
    let thread: string | undefined;
    if (continueFrom !== undefined) {
      // refused before the first line is typed, not after (its warnings come with the first run)
      try {
        thread = checkContinuation(graph, (await exportTeamState(conn.client, continueFrom)).state).state.threadId;
      } catch (e) {
        if (!(e instanceof ContinueRefusedError)) throw e;
        for (const p of e.problems) err(CLI_RUN_TEXTS.cannotContinue(p));
        return 1;
      }
    }
    out(CHAT_TEXTS.opening(graph.name, Object.keys(graph.agents)));
    out(CHAT_TEXTS.keys);
    if (continueFrom !== undefined && thread !== undefined) out(CHAT_TEXTS.continuing(continueFrom, thread));
    return await new Chat(conn.client, graph, conn.settings.taskQueue, continueFrom, thread).talk();
  } finally {
    await conn.close();
  }
}
