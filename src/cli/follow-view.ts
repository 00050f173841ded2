/**
 * Showing a followed run (`troupe run`, `troupe status --watch`, `troupe chat`): on a terminal a live view that
 * redraws in place and ticks every second (log-update erases the previous frame and hides the
 * cursor); on a pipe or in CI plain timestamped lines; with `--json` the untimestamped progress
 * lines on stderr, as before, so stdout carries only the JSON. `TROUPE_PROGRESS=live|plain`
 * overrides what the terminal check chose.
 */
import type { FollowEvent } from '../client/follow';
import type { RunResult } from '../core/ending/result';
import { CLI_LIVE_TEXTS } from './live-texts';
import { applyFollowEvent, newLiveModel, type LiveModel } from './live-model';
import { renderLive } from './live-view';
import { eventLines, stampLines } from './plain-lines';

/** How a follow is shown. */
type FollowMode = 'live' | 'plain' | 'json';

/** How often the live view redraws between events, so elapsed times tick. */
const TICK_MS = 1_000;

/** The mode for this output: `--json`, else `TROUPE_PROGRESS`, else live on a terminal (not in CI). */
export function followMode(json: boolean, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): FollowMode {
  if (json) return 'json';
  if (env.TROUPE_PROGRESS === 'live' || env.TROUPE_PROGRESS === 'plain') return env.TROUPE_PROGRESS;
  return stream.isTTY && !env.CI && env.TERM !== 'dumb' ? 'live' : 'plain';
}

/** A follow's presentation. */
interface FollowView {
  onEvent(e: FollowEvent): void;
  /** Stop drawing (the last frame stays); with the result, a plain follow prints its end line. */
  close(result?: RunResult): void;
  /**
   * Erase the live frame and draw nothing until {@link release}, so other lines can be written
   * (`troupe chat` asks a request at its prompt); events still count. A plain follow prints on.
   */
  hold(): void;
  /** Draw again, below what was written while held. */
  release(): void;
}

/** Where a view writes. */
interface ViewOutput {
  /** Whole lines to stdout. */
  out(line: string): void;
  /** Whole lines to stderr. */
  err(line: string): void;
  /** The terminal stdout is (live mode draws on it). */
  stream: NodeJS.WriteStream;
  now?: () => number;
}

/** Kinds `--json` printed on stderr before the live view existed; it keeps to them. */
const JSON_KINDS: ReadonlySet<FollowEvent['kind']> = new Set(['step', 'phase', 'warning']);

function plainView(id: string, o: ViewOutput, now: () => number, json: boolean): FollowView {
  let runs = 0;
  return {
    onEvent(e) {
      if (json) {
        if (JSON_KINDS.has(e.kind)) for (const l of eventLines(id, e)) o.err(l);
        return;
      }
      for (const l of stampLines(eventLines(id, e, runs), now())) o.out(l);
      if (e.kind === 'started') runs += 1;
    },
    close(result) {
      if (result && !json) for (const l of stampLines([CLI_LIVE_TEXTS.ended(result.status, result.reason)], now())) o.out(l);
    },
    hold() {},
    release() {},
  };
}

function liveView(id: string, o: ViewOutput, now: () => number): FollowView {
  // loaded only for a terminal: plain and JSON follows never need it
  const logUpdate = (require('log-update') as typeof import('log-update')).create(o.stream);
  let model: LiveModel = newLiveModel(id);
  const draw = () => logUpdate(renderLive(model, now(), { columns: o.stream.columns ?? 80, rows: o.stream.rows ?? 24 }));
  const tick = () => {
    const t = setInterval(draw, TICK_MS);
    t.unref();
    return t;
  };
  let ticker: NodeJS.Timeout | undefined = tick();
  draw();
  let closed = false;
  let held = false;
  let scheduled = false;
  return {
    onEvent(e) {
      if (closed) return;
      model = applyFollowEvent(model, e, now());
      // the events of one snapshot arrive together: draw once, after the last of them
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        if (!closed && !held) draw();
      });
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(ticker);
      draw();
      logUpdate.done();
    },
    hold() {
      if (closed || held) return;
      held = true;
      clearInterval(ticker);
      logUpdate.clear();
      logUpdate.done();
    },
    release() {
      if (closed || !held) return;
      held = false;
      ticker = tick();
      draw();
    },
  };
}

/** The view for run `id` in `mode`. */
export function createFollowView(id: string, mode: FollowMode, o: ViewOutput): FollowView {
  const now = o.now ?? Date.now;
  return mode === 'live' ? liveView(id, o, now) : plainView(id, o, now, mode === 'json');
}
