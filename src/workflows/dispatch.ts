/**
 * One agent's dispatch (docs/semantics.md, "Waves"): its messages, its call — the agent activity, the
 * tool dispatch of an agent with worker tools (`tool-dispatch.ts`), or a team agent's child run
 * (`team-call.ts`) — and how it ends: the agent's outcome or the run's end, its span, and the one
 * in-flight rule (an agent leaves `inFlight` when its own dispatch ends). This is the one body of a
 * dispatch: a wave carries out one per agent with {@link settleDispatch}, and the round loop carries
 * out a wave of one itself with the same calls (`run.ts`), so that a step costs the workflow one
 * `await`, as a bare activity does (BENCHMARKS.md, B1: the SDK captures a stack trace for every
 * promise a workflow creates). For that, {@link AgentDispatch.call} returns the agent activity's own
 * promise when nothing has to come before it, and the caller awaits it.
 */
import type { RunEnd } from '../core/ending/result';
import type { CompiledBudget } from '../core/graph/types';
import type { AgentCallResult } from '../core/llm/contract';
import { summary } from '../core/observe/summaries';
import type { PromptNote } from '../core/prompts/build';
import type { AgentOutcome, DispatchOptions } from '../core/run/types';
import type { WaveItem } from '../core/waves/types';
import { agentCall, messagesWithoutCompaction, prepareMessages, type Prepared } from './agent-call';
import { failedCall, modelCall, trackModelCall, type ModelCallTrack } from './calls';
import type { Run } from './execution';
import { dispatchSucceeded, openDispatchSpan, within, type DispatchSpan, type DispatchSpanEnd } from './spans';
import { teamCall, teamLabel } from './team-call';
import { dispatchWithTools } from './tool-dispatch';

/** A dispatch that ended the run's way before any model answered: its messages do not fit, or a team's child run failed. */
class DispatchEnded extends Error {
  constructor(readonly end: RunEnd) {
    super(end.reason);
  }
}

/** One agent's dispatch under way (see the module doc). */
export class AgentDispatch {
  private readonly span: DispatchSpan | undefined;
  private ended: DispatchSpanEnd = { ok: false, error: 'cancelled' };
  /** The agent activity's call and its bookkeeping, once it was made without anything before it. */
  private bare?: { track: ModelCallTrack; start: () => Promise<AgentCallResult> };

  /** Open the dispatch of `item` (its notes: `notes`; a team agent's caps: `share`), its span first. */
  constructor(
    private readonly run: Run,
    readonly item: WaveItem,
    private readonly notes: PromptNote[],
    private readonly options: DispatchOptions,
    private readonly share: CompiledBudget = {},
  ) {
    this.span = openDispatchSpan(run, item);
  }

  /**
   * The call, made (or made again after {@link again}): the agent activity's own promise when the
   * agent has no worker tools and its messages need no compaction (every step of a pipeline or a
   * review loop); otherwise the promise of what has to come first and the call.
   */
  call(): Promise<AgentCallResult> {
    if (this.bare) return within(this.span, this.bare.start);
    const { run, item } = this;
    if (run.graph.agents[item.agent].team) return within(this.span, () => this.team());
    // messages without a promise unless older context must be compacted first
    const prepared = messagesWithoutCompaction(run, item, this.notes);
    if (prepared === undefined) return within(this.span, () => this.compacted());
    if (!prepared.ok) return Promise.reject(new DispatchEnded(prepared.end));
    const { label, specs, input, callAgent } = agentCall(run, item, prepared.messages, this.options);
    if (specs) return within(this.span, () => dispatchWithTools(run, input, specs, label));
    this.bare = { track: trackModelCall(run, { kind: 'agent', agent: item.agent, label }), start: () => callAgent.executeWithOptions({ summary: summary(label) }, [input]) };
    return within(this.span, this.bare.start);
  }

  /** Whether the call, failed with `err` on its `lost`-th try, is made again: an agent activity whose every attempt was lost with its worker (`calls.ts`). */
  again(err: unknown, lost: number): boolean {
    return this.bare?.track.again(err, lost) ?? false;
  }

  /** The call answered: the agent's outcome. */
  succeeded(result: AgentCallResult): AgentOutcome {
    this.ended = dispatchSucceeded(result);
    return { item: this.item, result };
  }

  /** The call failed with `err`: the run's end it brings, or undefined when it was cancelled (a timer or a sibling's failure: nothing failed). */
  failed(err: unknown): RunEnd | undefined {
    const end = err instanceof DispatchEnded ? err.end : failedCall(this.run, this.item.agent, err);
    if (end) this.ended = { ok: false, error: end.reason };
    return end;
  }

  /**
   * The dispatch is over: its span ends, its agent is no longer in flight, and its agent call no
   * longer running — published only while other calls run: the run publishes before it next blocks
   * (BENCHMARKS.md, B5).
   */
  close(): void {
    const { run, item } = this;
    this.span?.end(this.ended);
    run.inFlight = run.inFlight.filter((a) => a !== item.agent);
    this.bare?.track.done({ publish: run.running.length > 1 });
  }

  /** A team agent's child run, as the agent's result. */
  private async team(): Promise<AgentCallResult> {
    const { run, item } = this;
    const team = await teamCall(run, item, teamLabel(run, item), this.notes, this.share);
    if (!team.ok) throw new DispatchEnded(team.end);
    return team.result;
  }

  /** Older context compacted into the agent's summary first, then its call. */
  private async compacted(): Promise<AgentCallResult> {
    const { run, item } = this;
    const prepared: Prepared = await prepareMessages(run, item, this.notes);
    if (!prepared.ok) throw new DispatchEnded(prepared.end);
    const { label, specs, input, callAgent } = agentCall(run, item, prepared.messages, this.options);
    if (specs) return dispatchWithTools(run, input, specs, label);
    return modelCall(run, { kind: 'agent', agent: item.agent, label }, () => callAgent.executeWithOptions({ summary: summary(label) }, [input]));
  }
}

/** What a dispatch came to: the agent's outcome, or the run's end (neither: it was cancelled). */
export interface Settled {
  outcome?: AgentOutcome;
  end?: RunEnd;
}

/**
 * Carry out `d`: its call, made again while lost with its worker, to its outcome or its end. The
 * round loop does the same for a wave of one inline (`run.ts`), to keep its one `await` per step.
 */
export async function settleDispatch(d: AgentDispatch): Promise<Settled> {
  try {
    for (let lost = 1; ; lost++) {
      try {
        return { outcome: d.succeeded(await d.call()) };
      } catch (err) {
        if (!d.again(err, lost)) throw err;
      }
    }
  } catch (err) {
    const end = d.failed(err);
    return end ? { end } : {};
  } finally {
    d.close();
  }
}
