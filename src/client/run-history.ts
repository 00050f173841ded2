/**
 * Watching a run's history from the client, as a wake-up: one long-poll of
 * `GetWorkflowExecutionHistory` with `waitNewEvent` at a time, which the server holds until the
 * history moves (or about 20 s pass), so a follower costs nothing while nothing happens. The watch
 * follows the run chain across continue-as-new and reads from each page only what the history itself
 * states: that a workflow task completed (the run's position may have changed), the progress records
 * a followed run writes, the graph and task each run of the chain started with, and the end of the
 * chain. What the run is doing comes from the progress contract (`core/observe/progress.ts`), never
 * from the labels of its events, which are for humans.
 */
import { isGrpcServiceError, WorkflowNotFoundError, type WorkflowClient, type WorkflowService } from '@temporalio/client';
import type { CompiledGraph } from '../core/graph/types';
import { PROGRESS_RECORD_KEY, type ProgressRecord } from '../core/observe/progress';

type HistoryResponse = Awaited<ReturnType<WorkflowService['getWorkflowExecutionHistory']>>;
type HistoryEvent = NonNullable<NonNullable<HistoryResponse['history']>['events']>[number];
type Payload = NonNullable<NonNullable<HistoryEvent['userMetadata']>['summary']>;

/** gRPC status NOT_FOUND. */
const GRPC_NOT_FOUND = 5;

/** What one page of history says. */
export interface HistoryNews {
  /** A workflow task completed (or the chain ended): the run's position may have changed. */
  moved: boolean;
  /** Runs of the chain that started in this page, with the graph they started with. */
  started: Array<{ runId: string; graph?: CompiledGraph; at: number }>;
  /** The chain ended (a close event with no next run). */
  closed: boolean;
  /** The progress records the run wrote (`core/observe/progress.ts`), oldest first. */
  records: ProgressRecord[];
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
    const news: HistoryNews = { moved: false, started: [], closed: false, records: [] };
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
    if (e.workflowTaskCompletedEventAttributes) {
      news.moved = true;
      return;
    }
    const record = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PROGRESS_RECORD_KEY];
    if (record) {
      // the record's removal from the memo, in the same task, reads as null
      const value = (await this.decode(record)) as ProgressRecord | null | undefined;
      if (value && typeof value === 'object' && value.v === 1) news.records.push(value);
      return;
    }
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      // the workflow's input (`RunInput`): its graph names the run's agents for a follower
      const input = (await this.decode(started.input?.payloads?.[0])) as { graph?: CompiledGraph } | undefined;
      news.started.push({ runId: this.runId || started.originalExecutionRunId || '', graph: input?.graph, at: eventMs(e) });
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
