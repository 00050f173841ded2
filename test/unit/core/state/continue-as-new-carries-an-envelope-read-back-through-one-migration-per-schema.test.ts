/**
 * What continue-as-new carries (docs/versioning.md, "What continue-as-new carries"): an envelope
 * with the schema number and the release that started the run, read back through one migration per
 * schema, so a run keeps the release it started with to its end and state an older release wrote
 * is read in today's shape.
 */
import { CARRY_SCHEMA, carryState, readCarried } from '../../../../src/core/state/carry';
import { TROUPE_RELEASE } from '../../../../src/core/state/release';
import { createRunState, type RunState } from '../../../../src/core/state/state';
import { completeGraph } from '../../fixtures/drive-machine';

const graph = completeGraph({ edges: [{ from: 'parent', to: 'writer', exit: false }, { from: 'writer', to: 'parent', exit: true }] });

function fresh(): RunState {
  const state = createRunState(graph, 'task', 'wf', 0);
  state.steps = 4;
  state.progress = 17;
  return state;
}

describe('the carried state', () => {
  it('is an envelope of the current schema with the release that started the run, and reads back unchanged', () => {
    const state = fresh();
    const carried = carryState(structuredClone(state));
    expect(carried).toMatchObject({ schema: CARRY_SCHEMA, release: TROUPE_RELEASE });
    expect(state.release).toBe(TROUPE_RELEASE);
    expect(readCarried(JSON.parse(JSON.stringify(carried)), 0)).toEqual(state);
  });

  it('keeps the release a run started with, whatever release reads it', () => {
    const state = { ...fresh(), release: '0.3.0-rc.1' };
    const carried = JSON.parse(JSON.stringify(carryState(state)));
    expect(carried.release).toBe('0.3.0-rc.1');
    expect(readCarried(carried, 0).release).toBe('0.3.0-rc.1');
  });

  it("reads 0.2's bare state (schema 2): the release is 0.2's, nothing else changes", () => {
    const { release: _r, ...bare } = fresh();
    const read = readCarried(JSON.parse(JSON.stringify(bare)), 0);
    expect(read.release).toBe('0.2.0');
    expect({ ...read, release: undefined }).toEqual({ ...bare, release: undefined });
  });

  it("reads 0.1's state (schema 1): its three request lists become one, decided requests last, and the release is 0.1's", () => {
    const { release: _r, requests: _q, ...rest } = fresh();
    const v1 = {
      ...rest,
      pending: [{ id: 'r2', kind: 'approval', agent: 'writer', summary: 'approve the draft', since: 5 }],
      held: [{ agent: 'writer', text: 'draft', requestId: 'r2', triggers: [] }],
      decisions: [{ requestId: 'r1', decision: 'reject', text: 'too short' }],
    };
    const read = readCarried(JSON.parse(JSON.stringify(v1)), 99);
    expect(read.release).toBe('0.1.0');
    expect(read.requests).toEqual([
      { id: 'r2', kind: 'approval', agent: 'writer', summary: 'approve the draft', since: 5, held: { text: 'draft', triggers: [] } },
      { id: 'r1', kind: 'approval', summary: '', since: 99, decision: { kind: 'reject', text: 'too short', at: 99 } },
    ]);
    expect(read).not.toHaveProperty('pending');
    expect(read).not.toHaveProperty('held');
    expect(read).not.toHaveProperty('decisions');
  });
});
