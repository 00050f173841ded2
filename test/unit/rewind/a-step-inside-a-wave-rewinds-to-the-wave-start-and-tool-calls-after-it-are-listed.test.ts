/**
 * Where a rewind goes back to (src/rewind/plan.ts): steps numbered from 1, a step inside a wave of
 * several standing for its wave (the boundary is the wave's start), the reset point the workflow task
 * after the boundary's results, and the worker tool calls after it listed as side effects.
 */
import { REWIND_TEXTS, rewindPoint, sideEffects } from '../../../src/rewind/plan';
import type { ProbeReport, ProbeStep } from '../../../src/rewind/replay-interceptor';

const s = (step: number, agent: string, wave: number, tools: ProbeStep['tools'] = []): ProbeStep => ({ step, agent, round: 1, wave, kind: 'agent', tools });

/** A run: the start (task 3), step 1 alone, steps 2-4 a concurrent wave, step 5 alone, step 6 alone. */
const REPORTS: ProbeReport[] = [
  { steps: 0, historyLength: 3, recorded: [] },
  { steps: 1, historyLength: 9, recorded: [s(1, 'lead', 1)] },
  { steps: 4, historyLength: 21, recorded: [s(2, 'a', 2), s(3, 'b', 2, [{ tool: 'files.write_file', ran: true }]), s(4, 'c', 2)] },
  { steps: 5, historyLength: 27, recorded: [s(5, 'merge', 3, [{ tool: 'fetch_page', ran: true }, { tool: 'files.write_file', ran: false }])] },
  { steps: 6, historyLength: 33, recorded: [s(6, 'lead', 4)] },
];

describe('rewindPoint', () => {
  test('a step alone: the boundary is the step, the reset point the workflow task after its result', () => {
    const found = rewindPoint(REPORTS, 5);
    expect(found).toEqual({ ok: true, notes: [], point: { step: 5, boundary: 5, resetEventId: 28, again: [REPORTS[4].recorded[0]] } });
  });

  test('a step inside a concurrent wave stands for its wave: back to the wave start, the whole wave runs again', () => {
    for (const n of [2, 3, 4]) {
      const found = rewindPoint(REPORTS, n);
      if (!found.ok) throw new Error(found.problem);
      expect(found.point).toMatchObject({ boundary: 1, resetEventId: 10 });
      expect(found.point.again.map((x) => x.step)).toEqual([2, 3, 4, 5, 6]);
      expect(found.notes).toEqual([REWIND_TEXTS.wave(n, 2, 4)]);
    }
  });

  test('a first wave of several goes back to the run start: the first workflow task', () => {
    const reports: ProbeReport[] = [{ steps: 0, historyLength: 3, recorded: [] }, { steps: 2, historyLength: 12, recorded: [s(1, 'a', 1), s(2, 'b', 1)] }, { steps: 3, historyLength: 18, recorded: [s(3, 'c', 2)] }];
    const found = rewindPoint(reports, 2);
    expect(found).toMatchObject({ ok: true, point: { boundary: 0, resetEventId: 4 } });
  });

  test('no step 0, none beyond the last, and the last step leaves nothing to run again', () => {
    expect(rewindPoint(REPORTS, 0)).toEqual({ ok: false, problem: REWIND_TEXTS.noStep(0, 6) });
    expect(rewindPoint(REPORTS, 7)).toEqual({ ok: false, problem: REWIND_TEXTS.noStep(7, 6) });
    expect(rewindPoint(REPORTS, 1.5)).toEqual({ ok: false, problem: REWIND_TEXTS.noStep(1.5, 6) });
    expect(rewindPoint(REPORTS, 6)).toEqual({ ok: false, problem: REWIND_TEXTS.lastStep(6) });
    expect(rewindPoint([{ steps: 0, historyLength: 3, recorded: [] }], 1)).toEqual({ ok: false, problem: REWIND_TEXTS.noStep(1, 0) });
    expect(REWIND_TEXTS.noStep(0, 6)).toBe("--to-step 0: no step 0; the run's steps are 1 to 6 (`troupe transcript` shows them)");
  });

  test('a step recorded before the run continued as new is refused: its run is gone from this history', () => {
    const reports: ProbeReport[] = [{ steps: 10, historyLength: 3, recorded: [] }, { steps: 11, historyLength: 9, recorded: [s(11, 'a', 1)] }, { steps: 12, historyLength: 15, recorded: [s(12, 'b', 2)] }];
    expect(rewindPoint(reports, 4)).toEqual({ ok: false, problem: REWIND_TEXTS.earlierRun(4, 11) });
    expect(rewindPoint(reports, 11)).toMatchObject({ ok: true, point: { boundary: 11, resetEventId: 10 } });
  });
});

describe('sideEffects', () => {
  test('every worker tool call that ran after the boundary, in order; a call that never ran is none', () => {
    const found = rewindPoint(REPORTS, 1);
    if (!found.ok) throw new Error(found.problem);
    expect(sideEffects(found.point.again)).toEqual([
      { step: 3, agent: 'b', tool: 'files.write_file' },
      { step: 5, agent: 'merge', tool: 'fetch_page' },
    ]);
    const after5 = rewindPoint(REPORTS, 5);
    if (!after5.ok) throw new Error(after5.problem);
    expect(sideEffects(after5.point.again)).toEqual([]);
  });
});
