/**
 * Who decided: the decision payloads take an optional `by`; a decision that matches a request is
 * kept with who and when in the decision log, the transcript, the `status` view and the RunResult.
 */
import { parseSignalPayload } from '../../../../src/core/humans/signals';
import { decide, openRequest } from '../../../../src/core/humans/requests';
import { gateDigest } from '../../../../src/core/humans/digest';
import { decisionsOf, recordDecision } from '../../../../src/core/humans/decisions';
import { buildRunResult, buildStatusView } from '../../../../src/core/ending/result';
import { createRunState } from '../../../../src/core/state/state';
import { compileYaml } from '../../../helpers/compile';
import { CLI_RUN_TEXTS } from '../../../../src/cli/run-texts';

const graph = compileYaml(`
name: decided
task: t
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

describe('the decision payloads', () => {
  it('take an optional by on approve, reject and answer; a payload without it (older clients) still parses', () => {
    expect(parseSignalPayload('approve', { requestId: 'r1', by: 'alice' })).toEqual({ ok: true, value: { requestId: 'r1', by: 'alice' } });
    expect(parseSignalPayload('reject', { reason: 'no', by: ' bob ' })).toEqual({ ok: true, value: { reason: 'no', by: 'bob' } });
    expect(parseSignalPayload('answer', { text: '42', by: 'carol' })).toEqual({ ok: true, value: { text: '42', by: 'carol' } });
    expect(parseSignalPayload('approve', { requestId: 'r1' })).toEqual({ ok: true, value: { requestId: 'r1' } });
  });

  it('refuse an empty by with a warning rather than record an empty name', () => {
    const r = parseSignalPayload('approve', { by: '  ' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.warning).toBe('ignored malformed approve signal: by: must be a non-empty string');
  });
});

describe('recording a decision', () => {
  const decidedRun = (by?: string) => {
    const state = createRunState(graph, 't', 'wf-1', 1_000);
    state.steps = 3;
    state.round.wave = 2;
    const { digest } = openRequest(state, { kind: 'before_exit', agent: 'writer', summary: 'approve the final result', gate: { tool: '', text: 'the draft' }, now: 2_000 });
    const decided = decide(state, 'r1', { kind: 'reject', text: 'too short', at: Date.UTC(2026, 10, 5, 12, 0, 1), ...(by ? { by } : {}), digest });
    if (!decided.ok) throw new Error(decided.kept ? 'kept' : decided.warning);
    const record = recordDecision(state, decided.request);
    return { state, record };
  };

  it('keeps request, kind, agent, by, at and text in the log, and a decision entry in the transcript after the step it followed', () => {
    const { state, record } = decidedRun('alice');
    const digest = gateDigest({ kind: 'before_exit', requestId: 'r1', agent: 'writer', tool: '', text: 'the draft' });
    const expected = { requestId: 'r1', request: 'before_exit', agent: 'writer', kind: 'reject', by: 'alice', at: '2026-11-05T12:00:01.000Z', text: 'too short', digest };
    expect(record).toEqual(expected);
    expect(decisionsOf(state)).toEqual([expected]);
    expect(state.transcript).toEqual([
      expect.objectContaining({ step: 3, round: 1, wave: 2, agent: 'writer', kind: 'decision', text: 'too short', decision: expected }),
    ]);
  });

  it('shows the decisions in the status view and the RunResult', () => {
    const { state, record } = decidedRun('alice');
    expect(buildStatusView(state, 5_000, []).decisions).toEqual([record]);
    const result = buildRunResult(state, { status: 'completed', reason: 'exit', reasonText: 'exit' }, 5_000);
    expect(result.decisions).toEqual([record]);
  });

  it('a decision without by is kept without one, and state written before decisions were kept reads as none', () => {
    const { record } = decidedRun();
    expect(record).not.toHaveProperty('by');
    expect(CLI_RUN_TEXTS.decision(record)).toBe('  ✗ r1 (before_exit) writer rejected by an unnamed sender at 2026-11-05T12:00:01.000Z — too short');
    const old = createRunState(graph, 't', 'wf-2', 0);
    delete old.decisionLog;
    expect(buildRunResult(old, { status: 'completed', reason: 'exit', reasonText: 'exit' }, 1).decisions).toEqual([]);
  });

  it('the CLI line says who decided what', () => {
    const { record } = decidedRun('alice');
    expect(CLI_RUN_TEXTS.decision(record)).toBe('  ✗ r1 (before_exit) writer rejected by alice at 2026-11-05T12:00:01.000Z — too short');
  });
});
