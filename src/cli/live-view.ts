/**
 * The live view of a followed run, drawn from a {@link LiveModel} at a given time: a header with
 * the run's phase and active time, the round and wave, each running agent and tool call with its
 * elapsed time (under an agent, the last line its model call has written so far), loop counters against the cap, usage, the goal's turn, pending requests with the
 * exact commands that answer them, and recent decisions, warnings and steps. Pure: the terminal
 * driver (`follow-view.ts`) redraws it in place.
 */
import { formatElapsed, CLI_LIVE_TEXTS } from './live-texts';
import type { LiveModel } from './live-model';
import { lastLine, printable, tailOf } from '../core/text/printable';
import { CLI_RUN_TEXTS } from './run-texts';

/** Size of the terminal the frame must fit. */
interface FrameSize {
  columns: number;
  rows: number;
}

/** Cut a line to `columns` characters (code points), so the terminal never wraps it. */
function fit(line: string, columns: number): string {
  const chars = [...line];
  return chars.length <= columns ? line : `${chars.slice(0, Math.max(1, columns - 1)).join('')}…`;
}

/** Active time now: the snapshot's, plus the time since it while the run is running. */
function activeNow(model: LiveModel, now: number): number {
  const s = model.status;
  if (!s) return 0;
  return s.activeMs + (s.phase === 'running' ? Math.max(0, now - model.statusAt) : 0);
}

function stepLine(model: LiveModel): string | undefined {
  const s = model.steps[model.steps.length - 1];
  if (!s) return undefined;
  return CLI_LIVE_TEXTS.last(CLI_RUN_TEXTS.step(s.round, s.wave, s.agent, s.promptTokens + s.completionTokens, s.hash, printable(s.text).replace(/\s+/g, ' ').slice(0, 100)));
}

/**
 * An agent's line, and under it the last line its model call has written, its end kept in view:
 * model text is untrusted, so it is printed without escape sequences or control characters.
 */
function agentLines(model: LiveModel, agent: string, since: number, now: number, columns: number): string[] {
  const live = model.writing[agent];
  const line = CLI_LIVE_TEXTS.agent(agent, formatElapsed(now - since));
  if (!live) return [line];
  const text = lastLine(live.partialText);
  const head = line + CLI_LIVE_TEXTS.written(live.chars, live.kind);
  if (!text) return [head];
  const room = columns - 1 - [...CLI_LIVE_TEXTS.writing('')].length;
  return [head, CLI_LIVE_TEXTS.writing(tailOf(text, Math.max(8, room)))];
}

/**
 * The lines of the frame, before fitting (`columns`: the terminal's width, for the agents' text).
 * @internal exported for tests
 */
export function liveLines(model: LiveModel, now: number, columns = 80): string[] {
  const s = model.status;
  const lines = [CLI_LIVE_TEXTS.header(model.id, model.graphName, s?.phase ?? 'starting', formatElapsed(activeNow(model, now)))];
  if (!s) return [...lines, CLI_LIVE_TEXTS.starting];
  lines.push(CLI_LIVE_TEXTS.position(s.round, s.wave, s.steps, model.runs));
  for (const [agent, since] of Object.entries(model.agents)) lines.push(...agentLines(model, agent, since, now, columns));
  for (const t of Object.values(model.tools)) lines.push(CLI_LIVE_TEXTS.tool(t.label, formatElapsed(now - t.since)));
  if (s.inFlight.length === 0 && s.frontier.length > 0 && s.phase !== 'finished') lines.push(CLI_LIVE_TEXTS.nextWave(s.frontier));
  for (const [group, n] of Object.entries(s.iterations)) lines.push(CLI_LIVE_TEXTS.loop(group, n, model.cap));
  const u = s.usage;
  lines.push(CLI_LIVE_TEXTS.usage(u.totalTokens, u.costUsd, u.agentCalls, u.toolCalls?.total ?? 0));
  if (s.goal) lines.push(CLI_LIVE_TEXTS.goal(s.goal.status, s.goal.turnCount, s.goal.maxTurns));
  if (s.phase === 'paused') lines.push(CLI_RUN_TEXTS.paused(model.id, s.pause?.reason));
  for (const r of s.pending) lines.push(...CLI_RUN_TEXTS.awaiting(model.id, r).split('\n'));
  for (const d of model.decisions) lines.push(CLI_RUN_TEXTS.decision(d));
  for (const w of model.warnings) lines.push(CLI_RUN_TEXTS.warning(w));
  const last = stepLine(model);
  if (last) lines.push(last);
  return lines;
}

/**
 * The frame as drawn: every line printable (the frame goes to the terminal as it is, and warnings,
 * requests and decisions quote model and tool text) and cut to the width, and at most `rows - 1`
 * lines (a frame taller than the terminal could not be erased in place), the cut ones counted on the
 * last line.
 */
export function renderLive(model: LiveModel, now: number, size: FrameSize): string {
  const lines = liveLines(model, now, size.columns).flatMap((l) => printable(l).split('\n'));
  const room = Math.max(2, size.rows - 1);
  const shown = lines.length <= room ? lines : [...lines.slice(0, room - 1), CLI_LIVE_TEXTS.more(lines.length - room + 1)];
  return shown.map((l) => fit(l, Math.max(10, size.columns - 1))).join('\n');
}
