/**
 * The live view shows what each running agent is writing (docs/observability.md, "Live output"):
 * under its line, the last line of its model call's text so far, cut from the left so the newest
 * words stay in view and the line fits the terminal, with escape sequences and control characters
 * gone; the text goes with the call, and a stale reading never brings back a finished agent. Plain
 * lines print none of it.
 */
import { buildStatusView } from '../../../src/core/ending/result';
import type { InFlightCall } from '../../../src/core/observe/live';
import { createRunState } from '../../../src/core/state/state';
import type { FollowEvent } from '../../../src/client/follow';
import { applyFollowEvent, newLiveModel, type LiveModel } from '../../../src/cli/live-model';
import { liveLines, renderLive } from '../../../src/cli/live-view';
import { eventLines } from '../../../src/cli/plain-lines';
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
`);

const T0 = Date.UTC(2026, 10, 5, 12, 0, 0);

const live = (agent: string, partialText: string, kind: InFlightCall['kind'] = 'agent', chars = partialText.length): InFlightCall => ({
  agent,
  kind,
  partialText,
  chars,
  activityType: 'callAgent',
  activityId: `${agent}-1`,
  attempt: 1,
});

function running(...inFlight: string[]): FollowEvent {
  const s = buildStatusView(createRunState(graph, 't', 'run-1', 0), 0, inFlight);
  return { kind: 'status', status: s, at: T0 };
}

function fold(...events: FollowEvent[]): LiveModel {
  return events.reduce((m, e) => applyFollowEvent(m, e, T0), newLiveModel('run-1'));
}

const liveEvent = (...calls: InFlightCall[]): FollowEvent => ({ kind: 'live', calls, at: T0 });

test("an agent's line says how much it has written, and under it the last line of the text", () => {
  const m = fold(running('writer', 'critic'), liveEvent(live('writer', 'Tides rise twice a day.\nThe moon pulls the sea', 'agent', 4_180)));
  const lines = liveLines(m, T0 + 2_000, 80);
  const at = lines.indexOf('  ▸ writer  2.0s · 4180 chars');
  expect(at).toBeGreaterThan(0);
  expect(lines[at + 1]).toBe('    │ The moon pulls the sea');
  // an agent with nothing reported keeps its one line
  expect(lines[at + 2]).toBe('  ▸ critic  2.0s');
});

test('a long last line is cut from the left to fit the terminal, its newest words in view', () => {
  const text = `${'the tide goes out and '.repeat(20)}THE NEWEST WORDS`;
  const m = fold(running('writer'), liveEvent(live('writer', text)));
  const frame = renderLive(m, T0, { columns: 60, rows: 24 }).split('\n');
  const row = frame.find((l) => l.startsWith('    │ '))!;
  expect(row.startsWith('    │ …')).toBe(true);
  expect(row.endsWith('THE NEWEST WORDS')).toBe(true);
  for (const line of frame) expect([...line].length).toBeLessThanOrEqual(59);
});

test('escape sequences and control characters in the text never reach the terminal', () => {
  const hostile = 'ok\u001b[2J\u001b[H\u001b]0;owned\u0007 still \u009b31mhere\u0008\u202e!';
  const m = fold(running('writer'), liveEvent(live('writer', hostile)));
  const frame = renderLive(m, T0, { columns: 80, rows: 24 });
  expect(frame).toContain('    │ ok still here!');
  const unprintable = [...frame].filter((ch) => ch !== '\n' && (ch < ' ' || (ch >= '\u007f' && ch <= '\u009f') || ch === '\u202e'));
  expect(unprintable).toEqual([]);
});

test("a compaction's text says it is one; a call that has written nothing yet shows only its count", () => {
  const m = fold(running('writer'), liveEvent(live('writer', 'Summary so far', 'compaction')));
  expect(liveLines(m, T0)).toContain('  ▸ writer  0.0s · compaction: 14 chars');
  const empty = fold(running('writer'), liveEvent(live('writer', '\n  \n', 'agent', 0)));
  const lines = liveLines(empty, T0);
  expect(lines).toContain('  ▸ writer  0.0s · 0 chars');
  expect(lines.some((l) => l.startsWith('    │'))).toBe(false);
});

test('the text goes with its call, and a late reading does not bring back an agent that finished', () => {
  const writing = fold(running('writer'), liveEvent(live('writer', 'draft')));
  const ended = applyFollowEvent(writing, { kind: 'call', id: '3', agent: 'writer', label: 'writer', state: 'finished', at: T0 }, T0);
  expect(ended.writing).toEqual({});
  const late = applyFollowEvent(ended, liveEvent(live('writer', 'draft and more')), T0);
  expect(late.writing).toEqual({});
  const next = applyFollowEvent(writing, running('critic'), T0);
  expect(next.writing).toEqual({});
  expect(applyFollowEvent(writing, liveEvent(), T0).writing).toEqual({});
});

test('plain lines and --json print nothing of a live reading', () => {
  expect(eventLines('run-1', liveEvent(live('writer', 'draft')))).toEqual([]);
});
