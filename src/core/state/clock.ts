/**
 * The run's active clock, and the goal clock that stops with it. One active clock drives
 * `timeout_ms`, `budget.max_duration_ms` and the goal's time; pauses and every wait for a human stop
 * both clocks and starting the run again restarts both (docs/semantics.md, "Clocks"). Pure: the
 * workflow passes in its own time.
 */
import { pauseGoalClock, resumeGoalClock } from '../goals';
import type { RunState } from './state';

/** Active ms on the run clock at workflow time `now`. */
export function activeMs(state: Pick<RunState, 'clock'>, now: number): number {
  return state.clock.accumulatedMs + (state.clock.since === null ? 0 : Math.max(0, now - state.clock.since));
}

/** Start the active clock (idempotent). */
export function startClock(state: Pick<RunState, 'clock'>, now: number): void {
  if (state.clock.since === null) state.clock.since = now;
}

/** Stop the active clock (idempotent). */
export function stopClock(state: Pick<RunState, 'clock'>, now: number): void {
  if (state.clock.since !== null) {
    state.clock.accumulatedMs += Math.max(0, now - state.clock.since);
    state.clock.since = null;
  }
}

/** Stop the active clock and the goal clock (a pause, a wait for a human, the end of the run). */
export function stopClocks(state: RunState, now: number): void {
  stopClock(state, now);
  if (state.goal) state.goal = pauseGoalClock(state.goal, now);
}

/** Restart the active clock and the goal clock. */
export function startClocks(state: RunState, now: number): void {
  startClock(state, now);
  if (state.goal) state.goal = resumeGoalClock(state.goal, now);
}
