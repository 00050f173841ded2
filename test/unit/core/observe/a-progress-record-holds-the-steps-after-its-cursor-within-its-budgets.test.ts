import { lastStep, recordOf, RECORD_STEP_BUDGET_BYTES } from '../../../../src/core/observe/progress';
import { createRunState, type RunState, type TranscriptStep } from '../../../../src/core/state/state';
import { compileYaml } from '../../../helpers/compile';

const graph = compileYaml(`
name: rec
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
`);

function step(n: number, text = `reply ${n}`): TranscriptStep {
  return { step: n, agent: n % 2 ? 'writer' : 'critic', round: 1, wave: n, hash: `h${n}`, promptTokens: 1, completionTokens: 1, text, at: n, kind: 'agent' };
}

function stateWith(steps: TranscriptStep[]): RunState {
  const state = createRunState(graph, 'task', 'wf-1', 0);
  state.transcript = steps;
  state.steps = steps.filter((s) => s.kind !== 'decision').length;
  state.progress = 9;
  return state;
}

const source = (state: RunState) => ({ state, running: [], inFlight: [] });

describe('a progress record', () => {
  test('holds the steps after its cursor, oldest first, with the status and the counter; decisions stay in the status', () => {
    const decision: TranscriptStep = { ...step(2), kind: 'decision', text: 'approved' };
    const state = stateWith([step(1), step(2), decision, step(3)]);
    const record = recordOf(source(state), 5, 1);
    expect(record).toMatchObject({ v: 1, seq: 9, from: 1, through: 3, calls: [] });
    expect(record.steps.map((s) => s.step)).toEqual([2, 3]);
    expect(record.steps.every((s) => s.kind !== 'decision')).toBe(true);
    expect(record.status).toMatchObject({ phase: 'running', steps: 3 });
    expect(record.more).toBeUndefined();
  });

  test('with nothing new: no steps, and `through` is its cursor', () => {
    const record = recordOf(source(stateWith([step(1), step(2)])), 5, 2);
    expect(record).toMatchObject({ from: 2, through: 2, steps: [] });
    expect(lastStep(stateWith([step(1), step(2), { ...step(2), kind: 'decision' }]))).toBe(2);
    expect(lastStep(stateWith([]))).toBe(0);
  });

  test('steps over the budget are left out and the record says `more`; it still covers them, so the next one follows on', () => {
    const state = stateWith([step(1, 'a'.repeat(400)), step(2, 'b'.repeat(400)), step(3, 'c'.repeat(400))]);
    const one = JSON.stringify(step(1, 'a'.repeat(400))).length;
    const record = recordOf(source(state), 5, 0, { steps: one * 2, status: RECORD_STEP_BUDGET_BYTES });
    expect(record.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(record).toMatchObject({ from: 0, through: 3, more: true });
  });

  test('a status over its budget: no status and no steps, and `more`, so the follower asks the query', () => {
    const state = stateWith([step(1)]);
    const record = recordOf(source(state), 5, 0, { steps: RECORD_STEP_BUDGET_BYTES, status: 100 });
    expect(record.status).toBeUndefined();
    expect(record).toMatchObject({ steps: [], through: 1, more: true });
  });

  test('the default budget keeps a record of a full transcript (200 steps) with tool calls far below the 2 MB memo limit', () => {
    const tools = [{ tool: 'search', arguments: '{"q":"x"}', ok: true, result: 'r'.repeat(200), durationMs: 5 }];
    const state = stateWith(Array.from({ length: 200 }, (_, i) => ({ ...step(i + 1, 'x'.repeat(500)), tools }) as TranscriptStep));
    const record = recordOf(source(state), 5, 0);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(1024 * 1024);
  });
});
