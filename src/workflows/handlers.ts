/**
 * Signal and query handlers (SPEC §7, §8). Handlers only validate and record into the run state;
 * the main loop acts on it. A malformed payload is ignored with a warning and never fails the run.
 */
import { setHandler } from '@temporalio/workflow';
import { parseSignalPayload, resolveDecision } from '../core/humans/signals';
import { buildStatusView } from '../core/ending/result';
import { pauseGoalClock, reactivatePausedGoal, resumeGoalClock } from '../core/goals';
import { addNote, startClock, stopClock, warn } from '../core/state/state';
import type { Run } from './context';
import {
  answerSignal,
  approveSignal,
  messageSignal,
  pauseSignal,
  rejectSignal,
  resumeSignal,
  signalSignal,
  statusQuery,
  stopSignal,
  transcriptQuery,
} from './definitions';
import { recordSignal } from './process';
import { TEXTS } from './texts';

/** Run a handler body; any error becomes a warning instead of failing the workflow task. */
function safely(run: Run, name: string, body: () => void): void {
  try {
    body();
  } catch (err) {
    warn(run.state, TEXTS.malformedSignal(name, err instanceof Error ? err.message : String(err)));
  }
}

function parsed<T>(run: Run, name: string, raw: unknown): T | undefined {
  const result = parseSignalPayload(name, raw);
  if (!result.ok) {
    warn(run.state, result.warning);
    return undefined;
  }
  return result.value as T;
}

function decide(run: Run, name: 'approve' | 'reject' | 'answer', raw: unknown): void {
  const payload = parsed<{ requestId?: string; note?: string; reason?: string; text?: string }>(run, name, raw);
  if (!payload) return;
  const resolved = resolveDecision(run.state.pending, payload.requestId, name);
  if (!resolved.ok) {
    warn(run.state, resolved.warning);
    return;
  }
  const text = name === 'approve' ? payload.note : name === 'reject' ? payload.reason : payload.text;
  run.state.pending = run.state.pending.filter((p) => p.id !== resolved.request.id);
  run.state.decisions.push({ requestId: resolved.request.id, decision: name, text });
}

/** Install every signal and query handler for this run. */
export function installHandlers(run: Run): void {
  const { state } = run;
  setHandler(pauseSignal, (raw) =>
    safely(run, 'pause', () => {
      if (parsed(run, 'pause', raw) === undefined) return;
      state.paused = true;
      if (run.inFlight.length === 0) {
        stopClock(state, Date.now());
        if (state.goal) state.goal = pauseGoalClock(state.goal, Date.now());
      }
    }),
  );
  setHandler(resumeSignal, (raw) =>
    safely(run, 'resume', () => {
      if (parsed(run, 'resume', raw) === undefined) return;
      state.paused = false;
      if (state.goal) state.goal = reactivatePausedGoal(state.goal, Date.now());
      if (state.pending.length === 0 && !run.end) {
        startClock(state, Date.now());
        if (state.goal) state.goal = resumeGoalClock(state.goal, Date.now());
      }
    }),
  );
  setHandler(approveSignal, (raw) => safely(run, 'approve', () => decide(run, 'approve', raw)));
  setHandler(rejectSignal, (raw) => safely(run, 'reject', () => decide(run, 'reject', raw)));
  setHandler(answerSignal, (raw) => safely(run, 'answer', () => decide(run, 'answer', raw)));
  setHandler(messageSignal, (raw) =>
    safely(run, 'message', () => {
      const msg = parsed<{ text: string; to?: string }>(run, 'message', raw);
      if (!msg) return;
      if (msg.to !== undefined && !run.graph.agents[msg.to]) {
        warn(state, TEXTS.malformedSignal('message', `unknown agent "${msg.to}"`));
        return;
      }
      const note = { kind: 'user_message' as const, text: msg.text, from: 'user' };
      if (msg.to) addNote(state, msg.to, note);
      else state.broadcast.push(note);
    }),
  );
  setHandler(signalSignal, (raw) =>
    safely(run, 'signal', () => {
      const sig = parsed<{ type: string; payload?: unknown }>(run, 'signal', raw);
      if (!sig) return;
      recordSignal(state, sig.type, sig.payload, Date.now());
    }),
  );
  setHandler(stopSignal, (raw) =>
    safely(run, 'stop', () => {
      const stop = parsed<{ reason?: string }>(run, 'stop', raw ?? {});
      if (stop) state.stop = { reason: stop.reason };
    }),
  );
  setHandler(statusQuery, () => buildStatusView(state, Date.now(), run.inFlight, run.end));
  setHandler(transcriptQuery, () => state.transcript);
}
