/**
 * The run's messages: signal and query definitions (their names are part of the CLI contract; the
 * client imports these definitions so both sides agree, with payload types taken from the zod
 * schemas in `core/humans/signals.ts`) and their handlers. A handler only validates its payload and
 * records it in the run state; the main loop acts on it. A malformed payload becomes a warning and
 * never fails the run.
 */
import { defineQuery, defineSignal, setHandler, type SignalDefinition } from '@temporalio/workflow';
import { buildStatusView, type RunStatusView } from '../core/ending/result';
import { RUN_END_TEXTS } from '../core/ending/texts';
import { reactivatePausedGoal } from '../core/goals';
import { takeDecision } from '../core/humans/decisions';
import { progressOf, type RunProgress } from '../core/observe/progress';
import { awaitingHumans, type DecisionKind } from '../core/humans/requests';
import { parseSignalPayload, type SignalInputs, type SignalName } from '../core/humans/signals';
import { startClocks, stopClocks } from '../core/state/clock';
import { queueMessage, warn, type TranscriptStep } from '../core/state/state';
import { recordSignal } from '../core/waves/record';
import type { Run } from './execution';
import { publish } from './observe';

/** Workflow type name, as registered by the worker. */
export const WORKFLOW_TYPE = 'troupeRun';

const signal = <K extends SignalName>(name: K) => defineSignal<[SignalInputs[K]?]>(name);

export const pauseSignal = signal('pause');
export const resumeSignal = signal('resume');
export const approveSignal = signal('approve');
export const rejectSignal = signal('reject');
export const answerSignal = signal('answer');
export const messageSignal = signal('message');
export const signalSignal = signal('signal');
export const stopSignal = signal('stop');

/** Every signal of the contract, by name. */
export const SIGNALS = {
  pause: pauseSignal,
  resume: resumeSignal,
  approve: approveSignal,
  reject: rejectSignal,
  answer: answerSignal,
  message: messageSignal,
  signal: signalSignal,
  stop: stopSignal,
} as const;

export const statusQuery = defineQuery<RunStatusView>('status');
export const transcriptQuery = defineQuery<TranscriptStep[]>('transcript');
/** The progress contract (`core/observe/progress.ts`): the run's position and the steps after step `after`. */
export const progressQuery = defineQuery<RunProgress, [after?: number]>('progress');

/** Parse, record a warning when malformed, and never throw. */
function handle<K extends SignalName>(run: Run, name: K, raw: unknown, body: (payload: ParsedOf<K>) => void): void {
  run.signalsSeen += 1;
  try {
    const parsed = parseSignalPayload(name, raw);
    if (!parsed.ok) warn(run.state, parsed.warning);
    else body(parsed.value as ParsedOf<K>);
  } catch (err) {
    warn(run.state, RUN_END_TEXTS.malformedSignal(name, err instanceof Error ? err.message : String(err)));
  }
  if (!run.end) publish(run);
}

type ParsedOf<K extends SignalName> = Exclude<ReturnType<typeof parseSignalPayload<K>>, { ok: false }>['value'];

/**
 * Match a decision to its request and remember who decided (`by`, absent from older clients) and
 * what they named (`digest`, which a gate's decision must carry); a refused decision is recorded as
 * refused. What becomes of it is one pure verdict (`checkDecision`), the shape of an Update validator.
 */
function onDecision(run: Run, kind: DecisionKind, p: { requestId?: string; by?: string; digest?: string }, text: string | undefined): void {
  const decision = {
    kind,
    ...(text !== undefined ? { text } : {}),
    at: Date.now(),
    ...(p.by !== undefined ? { by: p.by } : {}),
    ...(p.digest !== undefined ? { digest: p.digest } : {}),
  };
  takeDecision(run.state, p.requestId, decision);
}

/**
 * Send a `stop`, `pause` or `resume` the parent received on to its team agents' child runs in flight
 * (docs/teams.md, "Nested teams"). A child that ended meanwhile is no error.
 */
function forward(run: Run, name: 'stop' | 'pause' | 'resume', raw: unknown): void {
  const signal = SIGNALS[name] as SignalDefinition<unknown[]>;
  for (const child of run.children) void child.handle?.signal(signal, ...(raw === undefined ? [] : [raw])).catch(() => undefined);
}

/** Install every signal and query handler for this run. */
export function installHandlers(run: Run): void {
  const { state } = run;
  setHandler(pauseSignal, (raw) =>
    handle(run, 'pause', raw, () => {
      state.paused = true;
      if (run.inFlight.length === 0) stopClocks(state, Date.now());
      forward(run, 'pause', raw);
    }),
  );
  setHandler(resumeSignal, (raw) =>
    handle(run, 'resume', raw, () => {
      state.paused = false;
      if (state.goal) state.goal = reactivatePausedGoal(state.goal, Date.now());
      if (!awaitingHumans(state) && !run.end) startClocks(state, Date.now());
      forward(run, 'resume', raw);
    }),
  );
  setHandler(approveSignal, (raw) => handle(run, 'approve', raw, (p) => onDecision(run, 'approve', p, p.note)));
  setHandler(rejectSignal, (raw) => handle(run, 'reject', raw, (p) => onDecision(run, 'reject', p, p.reason)));
  setHandler(answerSignal, (raw) => handle(run, 'answer', raw, (p) => onDecision(run, 'answer', p, p.text)));
  setHandler(messageSignal, (raw) =>
    handle(run, 'message', raw, (msg) => {
      if (msg.to !== undefined && !run.graph.agents[msg.to]) {
        warn(state, RUN_END_TEXTS.malformedSignal('message', `unknown agent "${msg.to}"`));
        return;
      }
      queueMessage(state, msg.to, { kind: 'user_message', text: msg.text, from: 'user' });
    }),
  );
  setHandler(signalSignal, (raw) => handle(run, 'signal', raw, (sig) => recordSignal(state, sig.type, sig.payload, Date.now())));
  setHandler(stopSignal, (raw) =>
    handle(run, 'stop', raw ?? {}, (stop) => {
      state.stop = { reason: stop.reason };
      forward(run, 'stop', raw);
    }),
  );
  setHandler(statusQuery, () => buildStatusView(state, Date.now(), run.inFlight, run.end, run.children));
  setHandler(transcriptQuery, () => state.transcript);
  setHandler(progressQuery, (after) =>
    progressOf({ state, running: run.running, inFlight: run.inFlight, end: run.end, children: run.children }, Date.now(), after),
  );
}
