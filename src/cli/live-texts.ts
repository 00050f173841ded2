/**
 * User-visible texts of following a run: the live view `troupe run` and `troupe status --watch`
 * draw on a terminal, the timestamped lines they print to a pipe, and leaving a follow with Ctrl+C.
 */
import { usdSpentText } from '../core/budgets/ledger';
import { plural } from '../core/text/format';

/** `4.1s`, `1m 05s`, `2h 03m`: an elapsed time as the live view shows it. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/**
 * `12:04:31`: the local time of a plain line.
 * @internal exported for tests
 */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

export const CLI_LIVE_TEXTS = {
  header: (id: string, graph: string | undefined, phase: string, elapsed: string) =>
    `troupe · ${id}${graph ? ` (${graph})` : ''} · ${phase} · ${elapsed}`,
  starting: '  waiting for the run to start…',
  position: (round: number, wave: number, steps: number, runs: number) =>
    `round ${round} · wave ${wave} · ${plural(steps, 'step')}${runs > 1 ? ` · continued as new ${runs - 1}×` : ''}`,
  agent: (name: string, elapsed: string) => `  ▸ ${name}  ${elapsed}`,
  /** After an agent's line: how much its model call has written (a compaction or judge says so). */
  written: (chars: number, kind: string) => ` · ${kind === 'agent' ? '' : `${kind}: `}${plural(chars, 'char')}`,
  /** Under an agent's line: the last line of what its model call has written so far. */
  writing: (tail: string) => `    │ ${tail}`,
  tool: (label: string, elapsed: string) => `  ⚙ ${label}  ${elapsed}`,
  nextWave: (agents: string[]) => `  next: ${agents.join(', ')}`,
  loop: (group: string, n: number, cap: number) => `loop ${group}: ${n}${cap > 0 ? `/${cap}` : ''}`,
  usage: (tokens: number, usd: number, calls: number, tools: number) =>
    `usage: ${plural(tokens, 'token')} · ${usdSpentText(usd)} · ${plural(calls, 'agent call')}${tools ? ` · ${plural(tools, 'tool call')}` : ''}`,
  goal: (status: string, turn: number, maxTurns: number) => `goal: ${status}, turn ${turn}/${maxTurns}`,
  last: (line: string) => `last:${line}`,
  more: (n: number) => `  … ${n} more`,
  /** A plain line: local time, then the line. */
  stamped: (at: number, line: string) => `${clockTime(at)} ${line}`,
  toolStarted: (label: string) => `  ⚙ ${label}`,
  continued: (runId: string) => `  ↻ continued as new (run ${runId})`,
  ended: (status: string, reason: string) => `  ■ run ended: ${status} (${reason})`,
  /** Ctrl+C while following: the run is not stopped. */
  interrupted: (id: string) =>
    `\nstopped following ${id}; the run goes on.\n` +
    `  see it:     troupe status ${id}\n` +
    `  cancel it:  troupe cancel ${id}`,
} as const;

/** Exit code of a follow left with Ctrl+C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130;
