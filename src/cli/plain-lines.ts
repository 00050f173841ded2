/**
 * Follow events as plain lines, for a pipe, a log file or CI: one timestamped line per step, tool
 * call, wait, decision and warning, with no escape codes. Pure: the time is passed in.
 */
import type { FollowEvent } from '../follow';
import { LIVE_TEXT } from './live-texts';
import { RUN_TEXT } from './run-texts';

/**
 * The lines of one event, unstamped. `runsBefore` counts the runs of the chain already seen, so a
 * second `started` reads as a continue-as-new. Snapshots, agent calls and finished tool calls print
 * nothing (a step lists its tool calls with their results).
 */
export function eventLines(id: string, e: FollowEvent, runsBefore = 0): string[] {
  switch (e.kind) {
    case 'step': {
      const s = e.step;
      const preview = s.text.replace(/\s+/g, ' ').slice(0, 100);
      return [RUN_TEXT.step(s.round, s.wave, s.agent, s.promptTokens + s.completionTokens, s.hash, preview), ...(s.tools ?? []).map((t) => RUN_TEXT.toolCall(t))];
    }
    case 'phase': {
      const st = e.status;
      if (st.phase === 'awaiting_human') return st.pending.map((r) => RUN_TEXT.awaiting(id, r));
      if (st.phase === 'paused') return [RUN_TEXT.paused(id, st.pause?.reason)];
      return [];
    }
    case 'warning':
      return [RUN_TEXT.warning(e.text)];
    case 'decision':
      return [RUN_TEXT.decision(e.decision)];
    case 'tool':
      return e.state === 'started' ? [LIVE_TEXT.toolStarted(e.label)] : [];
    case 'started':
      return runsBefore > 0 ? [LIVE_TEXT.continued(e.runId)] : [];
    case 'status':
    case 'call':
      return [];
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** Prefix every line (each line of a multi-line text too) with the local time `at`. */
export function stampLines(lines: string[], at: number): string[] {
  return lines.flatMap((l) => l.split('\n')).map((l) => LIVE_TEXT.stamped(at, l));
}
