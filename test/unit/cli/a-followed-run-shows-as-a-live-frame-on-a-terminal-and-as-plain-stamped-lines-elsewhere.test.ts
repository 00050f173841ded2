/**
 * The presentation of a followed run: the live view's model and frame (elapsed times tick between
 * snapshots, pending requests show the commands that answer them, the frame fits the terminal),
 * the plain timestamped lines, and which of the two an output gets.
 */
import { buildStatusView, type RunStatusView } from '../../../src/core/ending/result';
import { openRequest } from '../../../src/core/humans/requests';
import { createRunState } from '../../../src/core/state/state';
import type { FollowEvent } from '../../../src/client/follow';
import { followMode } from '../../../src/cli/follow-view';
import { clockTime, formatElapsed, CLI_LIVE_TEXTS } from '../../../src/cli/live-texts';
import { applyFollowEvent, newLiveModel, type LiveModel } from '../../../src/cli/live-model';
import { liveLines, renderLive } from '../../../src/cli/live-view';
import { eventLines, stampLines } from '../../../src/cli/plain-lines';
import { compileYaml } from '../../helpers/compile';

const graph = compileYaml(`
name: viewed
task: t
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - max_iterations: 4
`);

const T0 = Date.UTC(2026, 10, 5, 12, 0, 0);

function status(edit: (s: RunStatusView) => void = () => undefined): RunStatusView {
  const state = createRunState(graph, 't', 'run-1', 0);
  state.round.wave = 3;
  state.steps = 2;
  state.round.loopCounters = { 'critic,writer': 1 };
  state.usage.totalTokens = 1234;
  state.usage.costUsd = 0.0125;
  state.usage.agentCalls = 2;
  const s = buildStatusView(state, 0, ['writer']);
  s.activeMs = 5_000;
  edit(s);
  return s;
}

function fold(events: Array<[FollowEvent, number]>): LiveModel {
  return events.reduce((m, [e, at]) => applyFollowEvent(m, e, at), newLiveModel('run-1'));
}

describe('the live model', () => {
  it('keeps when each running agent was first seen, across snapshots, and forgets agents that finished', () => {
    const m1 = fold([[{ kind: 'status', status: status(), at: T0 }, T0]]);
    const m2 = applyFollowEvent(m1, { kind: 'status', status: status((s) => (s.inFlight = ['writer', 'critic'])), at: T0 + 3_000 }, T0 + 3_000);
    expect(m2.agents).toEqual({ writer: T0, critic: T0 + 3_000 });
    const m3 = applyFollowEvent(m2, { kind: 'status', status: status((s) => (s.inFlight = ['critic'])), at: T0 + 4_000 }, T0 + 4_000);
    expect(m3.agents).toEqual({ critic: T0 + 3_000 });
  });

  it('tracks tool calls from start to finish, takes the cap from the graph and counts continue-as-new', () => {
    const m = fold([
      [{ kind: 'started', runId: 'a', graph, at: T0 }, T0],
      [{ kind: 'tool', id: 'a/7', agent: 'writer', label: 'word_count · writer', state: 'started', at: T0 + 100 }, T0 + 200],
      [{ kind: 'tool', id: 'a/9', agent: 'writer', label: 'fetch_page · writer', state: 'started', at: T0 + 150 }, T0 + 200],
      [{ kind: 'tool', id: 'a/7', agent: 'writer', label: '', state: 'finished', at: T0 + 900 }, T0 + 900],
      [{ kind: 'started', runId: 'b', graph, at: T0 + 1_000 }, T0 + 1_000],
    ]);
    expect(m.tools).toEqual({ 'a/9': { label: 'fetch_page · writer', since: T0 + 150 } });
    expect(m.cap).toBe(4);
    expect(m.runs).toBe(2);
    expect(m.graphName).toBe('viewed');
  });

  it('keeps the last three warnings', () => {
    const m = fold(['w1', 'w2', 'w3', 'w4'].map((text) => [{ kind: 'warning', text }, T0]));
    expect(m.warnings).toEqual(['w2', 'w3', 'w4']);
  });
});

describe('the live frame', () => {
  const model = fold([
    [{ kind: 'started', runId: 'a', graph, at: T0 }, T0],
    [{ kind: 'status', status: status(), at: T0 }, T0],
    [{ kind: 'tool', id: 'a/7', agent: 'writer', label: 'word_count · writer', state: 'started', at: T0 }, T0],
  ]);

  it('shows position, each running agent and tool with its elapsed time, loops against the cap, usage', () => {
    expect(liveLines(model, T0 + 2_500)).toEqual([
      'troupe · run-1 (viewed) · running · 7.5s',
      'round 1 · wave 3 · 2 steps',
      '  ▸ writer  2.5s',
      '  ⚙ word_count · writer  2.5s',
      'loop critic,writer: 1/4',
      'usage: 1234 tokens · $0.0125 · 2 agent calls',
    ]);
  });

  it('ticks between snapshots: a later time shows longer elapsed times, the same frame otherwise', () => {
    const a = liveLines(model, T0 + 1_000);
    const b = liveLines(model, T0 + 61_000);
    expect(b[0]).toBe('troupe · run-1 (viewed) · running · 1m 06s');
    expect(b[2]).toBe('  ▸ writer  1m 01s');
    expect(a.slice(4)).toEqual(b.slice(4));
  });

  it('shows each pending request with the exact commands that answer it, the goal turn, and stops the clock while waiting', () => {
    const state = createRunState(graph, 't', 'run-1', 0);
    openRequest(state, { kind: 'clarification', agent: 'writer', summary: 'which audience?', now: 0 });
    const waiting = buildStatusView(state, 0, []);
    waiting.activeMs = 2_000;
    waiting.goal = { status: 'active', turnCount: 2, maxTurns: 10, elapsedMs: 0, history: [] };
    const m = applyFollowEvent(model, { kind: 'status', status: waiting, at: T0 }, T0);
    const lines = liveLines(m, T0 + 9_000);
    expect(lines[0]).toBe('troupe · run-1 (viewed) · awaiting_human · 2.0s');
    expect(lines).toContain('goal: active, turn 2/10');
    expect(lines).toContain('  ✋ waiting for a human: r1 (clarification) writer — which audience?');
    expect(lines).toContain('     answer:  troupe answer run-1 "<your answer>" --request r1');
    expect(lines).toContain('     approve: troupe approve run-1 --request r1 [--note "..."]');
    expect(lines).toContain('     reject:  troupe reject run-1 --request r1 --reason "..."');
  });

  it('fits the terminal: no line wider than it, and no more lines than it has rows', () => {
    const busy = fold([
      [{ kind: 'status', status: status((s) => (s.inFlight = Array.from({ length: 30 }, (_, i) => `agent-with-a-long-name-${i}`))), at: T0 }, T0],
    ]);
    const frame = renderLive(busy, T0, { columns: 30, rows: 12 }).split('\n');
    expect(frame).toHaveLength(11);
    expect(frame[10]).toBe(CLI_LIVE_TEXTS.more(liveLines(busy, T0).length - 10));
    for (const line of frame) expect([...line].length).toBeLessThanOrEqual(29);
    expect(frame[0]).toBe('troupe · run-1 · running · 5…');
  });

  it('before the first snapshot says it waits for the run', () => {
    expect(liveLines(newLiveModel('run-1'), T0)).toEqual(['troupe · run-1 · starting · 0.0s', CLI_LIVE_TEXTS.starting]);
  });
});

describe('plain lines', () => {
  it('stamp every line with the local time and carry no escape codes', () => {
    const step = {
      kind: 'step' as const,
      step: { step: 1, agent: 'writer', round: 1, wave: 1, hash: 'abc', promptTokens: 10, completionTokens: 5, text: 'a\n draft', at: 0,
        tools: [{ tool: 'word_count', arguments: '{}', ok: true, result: '3', durationMs: 200 }] },
    };
    const lines = stampLines(eventLines('run-1', step as FollowEvent), T0);
    expect(lines).toEqual([
      `${clockTime(T0)}   [round 1 · wave 1] writer (15 tok, #abc) a draft`,
      `${clockTime(T0)}       ↳ word_count({}) 0.2s → 3`,
    ]);
    for (const l of lines) expect(l).not.toContain('\u001b');
    expect(clockTime(T0)).toMatch(/^\d\d:\d\d:\d\d$/);
  });

  it('print a wait with its commands, a tool call as it starts, a decision, a warning and a continue-as-new; snapshots print nothing', () => {
    const s = status((x) => (x.phase = 'paused'));
    expect(eventLines('run-1', { kind: 'phase', status: s })).toEqual(['  ⏸ paused — resume with: troupe resume run-1']);
    expect(eventLines('run-1', { kind: 'tool', id: 'a/1', agent: 'writer', label: 'word_count · writer', state: 'started', at: 0 })).toEqual(['  ⚙ word_count · writer']);
    expect(eventLines('run-1', { kind: 'tool', id: 'a/1', agent: 'writer', label: '', state: 'finished', at: 0 })).toEqual([]);
    expect(eventLines('run-1', { kind: 'warning', text: 'w' })).toEqual(['  ⚠ w']);
    expect(eventLines('run-1', { kind: 'decision', decision: { requestId: 'r1', request: 'approval', kind: 'approve', by: 'alice', at: 'T' } })).toEqual([
      '  ✓ r1 (approval) approved by alice at T',
    ]);
    expect(eventLines('run-1', { kind: 'started', runId: 'b', at: 0 }, 0)).toEqual([]);
    expect(eventLines('run-1', { kind: 'started', runId: 'b', at: 0 }, 1)).toEqual(['  ↻ continued as new (run b)']);
    expect(eventLines('run-1', { kind: 'status', status: s, at: 0 })).toEqual([]);
  });
});

describe('which view an output gets', () => {
  it('--json always; else TROUPE_PROGRESS; else live on a terminal, plain on a pipe, in CI or on a dumb terminal', () => {
    expect(followMode(true, { isTTY: true }, {})).toBe('json');
    expect(followMode(false, { isTTY: true }, {})).toBe('live');
    expect(followMode(false, { isTTY: false }, {})).toBe('plain');
    expect(followMode(false, {}, {})).toBe('plain');
    expect(followMode(false, { isTTY: true }, { CI: 'true' })).toBe('plain');
    expect(followMode(false, { isTTY: true }, { TERM: 'dumb' })).toBe('plain');
    expect(followMode(false, { isTTY: true }, { TROUPE_PROGRESS: 'plain' })).toBe('plain');
    expect(followMode(false, { isTTY: false }, { TROUPE_PROGRESS: 'live' })).toBe('live');
  });

  it('elapsed times read as seconds, then minutes, then hours', () => {
    expect([0, 4_120, 65_000, 3_725_000].map(formatElapsed)).toEqual(['0.0s', '4.1s', '1m 05s', '1h 02m']);
  });
});
