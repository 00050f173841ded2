/**
 * The verdict the `approve`, `reject` and `answer` Updates are validated with (docs/semantics.md,
 * "Humans in the loop"): a decision for no open request, a decided one, one not open yet, the wrong
 * kind, or a gate's without its digest is refused with a code a program reads and a reason a human
 * reads, and nothing changes; an applied one is answered with what follows it.
 */
import { appliedAnswer, refusedAnswer, takeDecision, whatFollows } from '../../../../src/core/humans/decisions';
import { checkDecision, EARLY_DECISION_LIMITS, openRequest, type RequestBook } from '../../../../src/core/humans/requests';
import { HUMAN_TEXTS } from '../../../../src/core/humans/texts';
import { createRunState } from '../../../../src/core/state/state';
import { compileYaml } from '../../../helpers/compile';

const book = (): RequestBook => ({ requests: [], requestCounter: 0 });
const openCall = (b: RequestBook) =>
  openRequest(b, { kind: 'tool_call', agent: 'ops', summary: 'deploy', payload: { tool: 'deploy', arguments: '{}' }, gate: { tool: 'deploy', text: '{}' }, now: 1 });
const openQuestion = (b: RequestBook) => openRequest(b, { kind: 'clarification', agent: 'writer', summary: 'which db?', now: 1 });
const approve = { kind: 'approve' as const, at: 2 };

describe('a decision is refused before anything changes', () => {
  it('when no request is open, or several are and it names none', () => {
    const b = book();
    expect(checkDecision(b, undefined, approve)).toEqual({ ok: false, refusal: { code: 'none_pending', reason: 'no request is pending' } });
    openQuestion(b);
    openQuestion(b);
    expect(checkDecision(b, undefined, approve)).toEqual({
      ok: false,
      refusal: { code: 'ambiguous', reason: '2 requests are pending (r1, r2); name one with requestId (--request)' },
    });
  });

  it('when it names a request decided already, one a little ahead (not open yet), or none of the run', () => {
    const b = book();
    openQuestion(b);
    openQuestion(b);
    const before = JSON.parse(JSON.stringify(b));
    expect(checkDecision(b, 'r1', approve)).toMatchObject({ ok: true, request: { id: 'r1' } });
    b.requests.shift();
    expect(checkDecision(b, 'r1', approve)).toEqual({
      ok: false,
      refusal: { code: 'decided', requestId: 'r1', reason: 'request r1 is not pending: it was decided already (pending: r2)' },
    });
    expect(checkDecision(b, 'r3', approve)).toEqual({ ok: false, refusal: { code: 'not_open_yet', requestId: 'r3', reason: 'request r3 is not pending: it is not open yet (pending: r2)' } });
    const far = `r${2 + EARLY_DECISION_LIMITS.ahead + 1}`;
    expect(checkDecision(b, far, approve)).toMatchObject({ ok: false, refusal: { code: 'not_pending', requestId: far } });
    expect(checkDecision(b, 'x', approve)).toMatchObject({ ok: false, refusal: { code: 'not_pending', reason: 'request x is not pending (pending: r2)' } });
    b.requests.unshift(before.requests[0]);
    expect(b).toEqual(before);
  });

  it("when it answers a gate, or decides one without the digest of what it shows or with another's", () => {
    const b = book();
    const gate = openCall(b);
    expect(checkDecision(b, 'r1', { kind: 'answer', text: 'yes', at: 2 })).toEqual({
      ok: false,
      refusal: { code: 'answer_to_gate', requestId: 'r1', reason: HUMAN_TEXTS.reasons.answerToGate('r1', 'tool_call') },
    });
    expect(checkDecision(b, 'r1', approve)).toMatchObject({ ok: false, refusal: { code: 'no_digest', requestId: 'r1' }, request: { id: 'r1' } });
    expect(checkDecision(b, 'r1', { ...approve, digest: `sha256:${'0'.repeat(64)}` })).toMatchObject({ ok: false, refusal: { code: 'other_digest' } });
    expect(checkDecision(b, 'r1', { ...approve, digest: gate.digest })).toMatchObject({ ok: true, request: { id: 'r1' } });
  });
});

describe('an applied decision is answered with what follows it', () => {
  it('for each kind of request, in a line to print', () => {
    const call = { kind: 'tool_call' as const, agent: 'ops', payload: { tool: 'deploy' } };
    expect(whatFollows(call, { kind: 'approve' })).toBe("ops's call of deploy runs");
    expect(whatFollows(call, { kind: 'reject', text: 'no' })).toBe("ops's call of deploy does not run; ops is told the reason");
    expect(whatFollows({ kind: 'before_exit', agent: 'editor' }, { kind: 'approve' })).toBe('the run ends with this result');
    expect(whatFollows({ kind: 'before_exit', agent: 'editor' }, { kind: 'reject', text: 'cite' })).toBe('a new round starts at editor with the reason');
    expect(whatFollows({ kind: 'clarification', agent: 'writer' }, { kind: 'answer', text: 'pg' })).toBe("writer's result goes on, and writer gets the text in its next input");
    expect(whatFollows({ kind: 'approval', agent: 'writer' }, { kind: 'approve' })).toBe("writer's result goes on");
    expect(whatFollows({ kind: 'approval', agent: 'writer' }, { kind: 'reject', text: 'no' })).toBe('writer runs again, alone, with the reason');
    expect(whatFollows({ kind: 'handoff', agent: 'triage' }, { kind: 'answer', text: 'ok' })).toBe('triage works again, with the answer');
  });

  it('as the run records it, and a refusal as its reason', () => {
    const state = createRunState(
      compileYaml(`
name: q
task: t
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`),
      'task',
      'wf',
      0,
    );
    openQuestion(state);
    const outcome = takeDecision(state, 'r1', { kind: 'answer', text: 'postgres', by: 'ana', at: 5 });
    if (!outcome.ok) throw new Error('not applied');
    expect(appliedAnswer(outcome.request)).toEqual({
      outcome: 'applied',
      decision: expect.objectContaining({ requestId: 'r1', request: 'clarification', kind: 'answer', by: 'ana', text: 'postgres' }),
      next: "writer's result goes on, and writer gets the text in its next input",
      text: "applied to r1: writer's result goes on, and writer gets the text in its next input",
    });
    expect(refusedAnswer({ code: 'none_pending', reason: 'no request is pending' })).toEqual({
      outcome: 'refused',
      refusal: { code: 'none_pending', reason: 'no request is pending' },
      text: 'refused: no request is pending',
    });
  });
});
