/**
 * Watching a run's history from the client: one long-poll of `GetWorkflowExecutionHistory` with
 * `waitNewEvent` at a time, which the server holds until the history moves (or about 20 s pass), so
 * a follower costs the worker nothing while nothing happens. The watch follows the run chain across
 * continue-as-new and reads each page into what a follower needs: whether the workflow's state may
 * have changed (a workflow task completed), the graph each run started with, the tool calls in
 * flight, and the end of the chain.
 */
import { isGrpcServiceError, WorkflowNotFoundError, type WorkflowClient, type WorkflowService } from '@temporalio/client';
import type { CompiledGraph } from './core/graph/types';

type HistoryResponse = Awaited<ReturnType<WorkflowService['getWorkflowExecutionHistory']>>;
type HistoryEvent = NonNullable<NonNullable<HistoryResponse['history']>['events']>[number];
type Payload = NonNullable<NonNullable<HistoryEvent['userMetadata']>['summary']>;

/** Activity type of one worker tool call (`workflows/proxies.ts`), labelled `<tool> · <agent>`. */
const TOOL_ACTIVITY = 'callTool';

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

/** What one page of history says. */
export interface HistoryNews {
  /** A workflow task completed (or the chain ended): the run's state may have changed. */
  moved: boolean;
  /** Runs of the chain that started in this page, with their input graph. */
  started: Array<{ runId: string; graph?: CompiledGraph; at: number }>;
  tools: ToolActivity[];
  /** The chain ended (a close event with no next run). */
  closed: boolean;
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
    const news: HistoryNews = { moved: false, started: [], tools: [], closed: false };
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
    return news;
  }

  private async read(e: HistoryEvent, news: HistoryNews): Promise<void> {
    if (e.workflowTaskCompletedEventAttributes) news.moved = true;
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = (await this.decode(started.input?.payloads?.[0])) as { graph?: CompiledGraph } | undefined;
      news.started.push({ runId: this.runId || started.originalExecutionRunId || '', graph: input?.graph, at: eventMs(e) });
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
    const closedActivity =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (closedActivity) {
      const id = this.scheduled.get(String(closedActivity.scheduledEventId));
      if (id) {
        this.scheduled.delete(String(closedActivity.scheduledEventId));
        news.tools.push({ id, label: '', state: 'finished', ok: Boolean(e.activityTaskCompletedEventAttributes), at: eventMs(e) });
      }
      return;
    }
    for (const key of CLOSE_ATTRIBUTES) {
      const attrs = e[key] as { newExecutionRunId?: string | null } | null | undefined;
      if (!attrs) continue;
      news.moved = true;
      if (attrs.newExecutionRunId) this.moveTo(attrs.newExecutionRunId);
      else {
        this.ended = true;
        news.closed = true;
      }
      return;
    }
  }

  /** Follow the chain to its next run (continue-as-new, or a retry): its history starts at event 1. */
  private moveTo(runId: string): void {
    this.runId = runId;
    this.token = undefined;
    this.lastEventId = 0;
    this.scheduled.clear();
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
