/**
 * Watching a run's history from the client: one long-poll of `GetWorkflowExecutionHistory` with
 * `waitNewEvent` at a time, which the server holds until the history moves (or about 20 s pass), so
 * a follower costs the worker nothing while nothing happens. The watch follows the run chain across
 * continue-as-new and reads each page into what a follower needs: the graph each run started with,
 * the agent and tool calls in flight, the steps each workflow task recorded (read from the agents'
 * results, as the workflow records them), whether something happened that only the worker can
 * describe (a signal, a wait, a retry, a failure: `irregular`), and the end of the chain.
 */
import { isGrpcServiceError, WorkflowNotFoundError, type WorkflowClient, type WorkflowService } from '@temporalio/client';
import type { CompiledGraph } from './core/graph/types';
import type { AgentCallResult } from './core/llm/contract';
import { parseAgentCall, SUMMARY_TEXTS, type CallPosition } from './core/observe/summaries';

/** The search attribute the SDK upserts with the run's patch ids when `patched()` first runs. */
const TEMPORAL_CHANGE_VERSION = 'TemporalChangeVersion';

type HistoryResponse = Awaited<ReturnType<WorkflowService['getWorkflowExecutionHistory']>>;
type HistoryEvent = NonNullable<NonNullable<HistoryResponse['history']>['events']>[number];
type Payload = NonNullable<NonNullable<HistoryEvent['userMetadata']>['summary']>;

/** Activity type of one worker tool call (`workflows/proxies.ts`), labelled `<tool> · <agent>`. */
const TOOL_ACTIVITY = 'callTool';
/** Activity type of an agent dispatch without worker tools: its result is one step. */
const AGENT_ACTIVITY = 'callAgent';
/** Activity type of one model call of a tool loop (the dispatch's step is built by the workflow). */
const MODEL_ACTIVITY = 'callModel';

/** gRPC status NOT_FOUND. */
const GRPC_NOT_FOUND = 5;

/** A tool call seen in the history: scheduled (started) or closed (finished). */
export interface ToolActivity {
  /** Unique across the run chain: `<runId>/<scheduled event id>`. */
  id: string;
  /** `<tool> · <agent>` from the activity's summary, or the activity type when it cannot be read. */
  label: string;
  state: 'started' | 'finished';
  /** Whether the call completed (finished only; a tool's own errors are answers and still complete). */
  ok?: boolean;
  /** Server time of the event (ms). */
  at: number;
}

/** An agent's model call seen in the history: scheduled (started) or closed (finished). */
export interface AgentCallActivity {
  /** Unique across the run chain: `<runId>/<scheduled event id>`. */
  id: string;
  agent: string;
  /** The call's label (`writer · round 1 · wave 2`), or the agent's name when it cannot be read. */
  label: string;
  state: 'started' | 'finished';
  /** Server time of the event (ms). */
  at: number;
}

/** A result a workflow task recorded as a step, in wave order, with the workflow time it did so. */
export interface RecordedStep {
  /** Its number in the run chain (steps carried by continue-as-new included). */
  step: number;
  position: CallPosition;
  result: AgentCallResult;
  at: number;
}

/** What one page of history says. */
export interface HistoryNews {
  /** A workflow task completed (or the chain ended): the run's state may have changed. */
  moved: boolean;
  /**
   * Something happened that the history does not describe as follow events (a signal, a wait, the
   * waiting flag, a retry or tool-loop dispatch, a failed or cancelled call, a run without call
   * labels): only a snapshot from the worker tells what it changed.
   */
  irregular: boolean;
  /**
   * Runs of the chain that started in this page, with their input graph and task; `fresh` when the
   * run starts from nothing (not continued from an earlier run's state).
   */
  started: Array<{ runId: string; graph?: CompiledGraph; task?: string; fresh: boolean; at: number }>;
  tools: ToolActivity[];
  calls: AgentCallActivity[];
  /** Steps recorded by workflow tasks that completed in this page, in order. */
  steps: RecordedStep[];
  /** The chain ended (a close event with no next run). */
  closed: boolean;
}

/** An agent call scheduled and not yet recorded. */
interface OpenCall {
  id: string;
  agent: string;
  /** Its label's position; absent when the call's step is not read from the history (a retry, a tool loop). */
  position?: CallPosition;
}

const CLOSE_ATTRIBUTES = [
  'workflowExecutionCompletedEventAttributes',
  'workflowExecutionFailedEventAttributes',
  'workflowExecutionTimedOutEventAttributes',
  'workflowExecutionCanceledEventAttributes',
  'workflowExecutionTerminatedEventAttributes',
  'workflowExecutionContinuedAsNewEventAttributes',
] as const;

function eventMs(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : Date.now();
}

/**
 * A cursor over the history of a workflow's run chain. `next()` long-polls once and returns what
 * the new events say; after a continue-as-new it moves on to the next run by itself.
 */
export class RunHistoryWatch {
  private runId: string;
  private token: Uint8Array | undefined;
  private lastEventId = 0;
  private readonly scheduled = new Map<string, string>();
  private readonly calls = new Map<string, OpenCall>();
  /** Results of calls closed since the last completed workflow task, by scheduled event id. */
  private done: Array<{ scheduled: number; step: RecordedStep }> = [];
  /** A call closed since the last completed workflow task in a way its step cannot be read. */
  private unreadable = false;
  private taskStartedAt = 0;
  /** The memo or search attributes were written by the last workflow task read. */
  private upserted = false;
  /** Steps of the chain recorded so far, as far as this run's history shows. */
  private steps = 0;
  private ended = false;

  /** `runId` empty: the run that is current when the first poll arrives. */
  constructor(
    private readonly client: WorkflowClient,
    private readonly workflowId: string,
    runId = '',
  ) {
    this.runId = runId;
  }

  /** Whether the chain has ended. */
  get closed(): boolean {
    return this.ended;
  }

  /** Long-poll the next page (aborted by `signal`); throws `WorkflowNotFoundError` for an unknown id. */
  async next(signal?: AbortSignal): Promise<HistoryNews> {
    const news: HistoryNews = { moved: false, irregular: false, started: [], tools: [], calls: [], steps: [], closed: false };
    let res: HistoryResponse;
    const request = () =>
      this.client.workflowService.getWorkflowExecutionHistory({
        namespace: this.client.options.namespace,
        execution: { workflowId: this.workflowId, runId: this.runId },
        nextPageToken: this.token,
        waitNewEvent: true,
        skipArchival: true,
      });
    try {
      res = signal ? await this.client.withAbortSignal(signal, request) : await request();
    } catch (err) {
      if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) {
        throw new WorkflowNotFoundError(`no workflow ${this.workflowId}`, this.workflowId, this.runId || undefined);
      }
      throw err;
    }
    this.token = res.nextPageToken && res.nextPageToken.length > 0 ? res.nextPageToken : undefined;
    for (const e of res.history?.events ?? []) {
      const id = Number(e.eventId ?? 0);
      if (id <= this.lastEventId) continue;
      this.lastEventId = id;
      await this.read(e, news);
      if (news.closed || this.lastEventId === 0) break;
    }
    // a write of the memo or search attributes that did not end the run changed the waiting flag
    if (this.upserted && !news.closed) news.irregular = true;
    this.upserted = false;
    return news;
  }

  private async read(e: HistoryEvent, news: HistoryNews): Promise<void> {
    if (e.workflowTaskStartedEventAttributes) this.taskStartedAt = eventMs(e);
    if (e.workflowTaskCompletedEventAttributes) {
      news.moved = true;
      this.taskCompleted(news);
      return;
    }
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = (await this.decode(started.input?.payloads?.[0])) as { graph?: CompiledGraph; task?: string; carried?: { steps?: number } } | undefined;
      // steps carried by continue-as-new: this run numbers its steps on from them
      this.steps = typeof input?.carried?.steps === 'number' ? input.carried.steps : 0;
      news.started.push({
        runId: this.runId || started.originalExecutionRunId || '',
        graph: input?.graph,
        ...(typeof input?.task === 'string' ? { task: input.task } : {}),
        fresh: input !== undefined && input.carried === undefined,
        at: eventMs(e),
      });
      return;
    }
    if (e.workflowExecutionSignaledEventAttributes) {
      news.irregular = true;
      return;
    }
    const upsert = e.upsertWorkflowSearchAttributesEventAttributes;
    if (upsert || e.workflowPropertiesModifiedEventAttributes) {
      // the waiting flag changed, or the run ends: the end needs no snapshot (`next` decides). The
      // SDK's own upsert of `TemporalChangeVersion` (the run's version, at its start) changes neither.
      const fields = Object.keys(upsert?.searchAttributes?.indexedFields ?? {});
      if (!upsert || fields.some((f) => f !== TEMPORAL_CHANGE_VERSION)) this.upserted = true;
      return;
    }
    if (e.timerStartedEventAttributes) {
      // a wait for a human or a pause carries a labelled timer; a `timeout_ms` timer changes nothing yet
      const summary = await this.decode(e.userMetadata?.summary);
      if (typeof summary !== 'string' || !summary.startsWith(SUMMARY_TEXTS.timeout(0, 0).split(' ')[0])) news.irregular = true;
      return;
    }
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === TOOL_ACTIVITY) {
      const summary = await this.decode(e.userMetadata?.summary);
      const id = `${this.runId}/${String(e.eventId)}`;
      this.scheduled.set(String(e.eventId), id);
      news.tools.push({ id, label: typeof summary === 'string' ? summary : TOOL_ACTIVITY, state: 'started', at: eventMs(e) });
      return;
    }
    const type = scheduled?.activityType?.name;
    if (scheduled && (type === AGENT_ACTIVITY || type === MODEL_ACTIVITY)) {
      const summary = await this.decode(e.userMetadata?.summary);
      const label = typeof summary === 'string' ? summary : '';
      const position = type === AGENT_ACTIVITY ? parseAgentCall(label) : undefined;
      const input = position ? undefined : ((await this.decode(scheduled.input?.payloads?.[0])) as { agent?: string } | undefined);
      const agent = position?.agent ?? input?.agent ?? type;
      const id = `${this.runId}/${String(e.eventId)}`;
      this.calls.set(String(e.eventId), { id, agent, ...(position ? { position } : {}) });
      news.calls.push({ id, agent, label: label || agent, state: 'started', at: eventMs(e) });
      return;
    }
    const closedActivity =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (closedActivity) {
      const key = String(closedActivity.scheduledEventId);
      const id = this.scheduled.get(key);
      if (id) {
        this.scheduled.delete(key);
        news.tools.push({ id, label: '', state: 'finished', ok: Boolean(e.activityTaskCompletedEventAttributes), at: eventMs(e) });
      }
      const call = this.calls.get(key);
      if (call) {
        this.calls.delete(key);
        news.calls.push({ id: call.id, agent: call.agent, label: '', state: 'finished', at: eventMs(e) });
        const completed = e.activityTaskCompletedEventAttributes;
        const result = completed && call.position ? ((await this.decode(completed.result?.payloads?.[0])) as AgentCallResult | undefined) : undefined;
        if (result && call.position && typeof result.text === 'string' && result.usage) {
          this.done.push({ scheduled: Number(key), step: { step: 0, position: call.position, result, at: 0 } });
        } else {
          this.unreadable = true;
        }
      }
      return;
    }
    for (const key of CLOSE_ATTRIBUTES) {
      const attrs = e[key] as { newExecutionRunId?: string | null } | null | undefined;
      if (!attrs) continue;
      news.moved = true;
      this.upserted = false;
      if (attrs.newExecutionRunId) this.moveTo(attrs.newExecutionRunId);
      else {
        this.ended = true;
        news.closed = true;
      }
      return;
    }
  }

  /**
   * A workflow task completed. A wave's results are recorded together, in wave order, by the task
   * after its last call closed: once no agent call is open, the results closed since are steps.
   */
  private taskCompleted(news: HistoryNews): void {
    if (this.unreadable) {
      // the step count is lost with it: later steps are not numbered from here (the snapshot numbers them)
      news.irregular = true;
      this.unreadable = false;
      this.done = [];
      this.steps = Number.NaN;
      return;
    }
    if (this.calls.size > 0 || this.done.length === 0) return;
    const at = this.taskStartedAt;
    news.steps.push(...this.done.sort((a, b) => a.scheduled - b.scheduled).map((d) => ({ ...d.step, step: ++this.steps, at })));
    this.done = [];
  }

  /** Follow the chain to its next run (continue-as-new, or a retry): its history starts at event 1. */
  private moveTo(runId: string): void {
    this.runId = runId;
    this.token = undefined;
    this.lastEventId = 0;
    this.scheduled.clear();
    this.calls.clear();
    this.done = [];
    this.unreadable = false;
  }

  /** A payload through the client's codecs and payload converter; undefined when it cannot be read. */
  private async decode(payload: Payload | null | undefined): Promise<unknown> {
    if (!payload) return undefined;
    try {
      const converter = this.client.options.loadedDataConverter;
      let payloads = [payload];
      for (const codec of [...converter.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
      return converter.payloadConverter.fromPayload(payloads[0]);
    } catch {
      // an encrypted summary without the key, or a payload this client cannot read: show less
      return undefined;
    }
  }
}
