/**
 * Follow events as plain lines, for a pipe, a log file or CI: one timestamped line per step, tool
 * call, wait, decision and warning, with no escape codes. Pure: the time is passed in.
 */
import type { FollowEvent } from '../client/follow';
import { CLI_LIVE_TEXTS } from './live-texts';
import { CLI_RUN_TEXTS } from './run-texts';
import type { TranscriptStep } from '../core/state/state';
import { printable } from '../core/text/printable';

/**
 * The lines of one event, unstamped. `runsBefore` counts the runs of the chain already seen, so a
 * second `started` reads as a continue-as-new. Snapshots, agent calls, finished tool calls and the
 * text a model call is writing print nothing (a step lists its tool calls with their results; a
 * log gets each agent's text once, whole, in its step).
 */
export function eventLines(id: string, e: FollowEvent, runsBefore = 0): string[] {
  switch (e.kind) {
    case 'step': {
      const s = e.step;
      const preview = printable(s.text).replace(/\s+/g, ' ').slice(0, 100);
      return [CLI_RUN_TEXTS.step(s.round, s.wave, s.agent, s.promptTokens + s.completionTokens, s.hash, preview), ...teamLines(s), ...(s.tools ?? []).map((t) => CLI_RUN_TEXTS.toolCall(t))];
    }
    case 'phase': {
      const st = e.status;
      if (st.phase === 'awaiting_human') return st.pending.map((r) => CLI_RUN_TEXTS.awaiting(id, r));
      if (st.phase === 'paused') return [CLI_RUN_TEXTS.paused(id, st.pause?.reason)];
      return [];
    }
    case 'warning':
      return [CLI_RUN_TEXTS.warning(e.text)];
    case 'decision':
      return [CLI_RUN_TEXTS.decision(e.decision)];
    case 'tool':
      return e.state === 'started' ? [CLI_LIVE_TEXTS.toolStarted(e.label)] : [];
    case 'started':
      return runsBefore > 0 ? [CLI_LIVE_TEXTS.continued(e.runId)] : [];
    // the phase's line names each request the run waits for
    case 'request':
    case 'status':
    case 'call':
    case 'live':
      return [];
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** Prefix every line (each line of a multi-line text too) with the local time `at`. */
export function stampLines(lines: string[], at: number): string[] {
  return lines.flatMap((l) => l.split('\n')).map((l) => CLI_LIVE_TEXTS.stamped(at, l));
}

/** How a team's step came and went: chosen by the selector, and its transfer (docs/teams.md). */
export function teamLines(s: Pick<TranscriptStep, 'selected' | 'handoff'>): string[] {
  return [...(s.selected ? [CLI_RUN_TEXTS.selected(s.selected)] : []), ...(s.handoff ? [CLI_RUN_TEXTS.handoff(s.handoff)] : [])];
}
