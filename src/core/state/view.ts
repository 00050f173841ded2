/** What the termination conditions read: the current round's state at workflow time `now`. Pure. */
import type { TerminationView } from '../conditions/view';
import { activeMs } from './clock';
import type { RunState } from './state';

/** The termination view of the current round at `now`. */
export function terminationView(state: RunState, now: number): TerminationView {
  const r = state.round;
  return {
    roundActiveMs: activeMs(state, now) - r.startedActiveMs,
    loopCounters: r.loopCounters,
    hashes: r.hashes,
    latest: r.latest,
    verdicts: r.verdicts,
    latches: r.latches,
    signals: r.signals,
    messages: r.messages,
    usage: r.usage,
    ...(r.handoffs && { handoffs: r.handoffs }),
    ...(r.toolsCalled && { toolsCalled: r.toolsCalled }),
  };
}
