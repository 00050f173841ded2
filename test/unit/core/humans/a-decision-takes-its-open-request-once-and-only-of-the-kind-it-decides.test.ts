import {
  awaitingHumans,
  decide,
  decideKept,
  EARLY_DECISION_LIMITS,
  keptDecisions,
  formatRequestId,
  holdsResults,
  openRequest,
  pendingRequests,
  takeDecided,
  type RequestBook,
} from '../../../../src/core/humans/requests';
import { HUMAN_TEXTS } from '../../../../src/core/humans/texts';
import { gateDigest } from '../../../../src/core/humans/digest';

const book = (): RequestBook => ({ requests: [], requestCounter: 0 });
const open = (b: RequestBook, held = false) =>
  openRequest(b, {
    kind: 'approval',
    agent: 'writer',
    summary: 's',
    now: 5,
    ...(held ? { held: { text: 'draft', triggers: [{ from: 'parent', text: 'task' }] } } : {}),
  });

describe('request ids', () => {
  it('are r1, r2, … from the counter', () => {
    expect([1, 2, 10].map(formatRequestId)).toEqual(['r1', 'r2', 'r10']);
    const b = book();
    expect([open(b).id, open(b).id]).toEqual(['r1', 'r2']);
    expect(b.requestCounter).toBe(2);
  });
});

describe('deciding', () => {
  it('takes the only open request when no id is given, and it stops being pending', () => {
    const b = book();
    open(b);
    const d = decide(b, undefined, { kind: 'approve', text: 'ok', at: 9 });
    expect(d).toMatchObject({ ok: true, request: { id: 'r1', decision: { kind: 'approve', text: 'ok', at: 9 } } });
    expect(pendingRequests(b)).toEqual([]);
    expect(awaitingHumans(b)).toBe(false);
  });

  it('takes the named request among several', () => {
    const b = book();
    open(b);
    open(b);
    expect(decide(b, 'r2', { kind: 'answer', text: 'x', at: 1 })).toMatchObject({ ok: true, request: { id: 'r2' } });
    expect(pendingRequests(b).map((p) => p.id)).toEqual(['r1']);
  });

  it('is ambiguous with several open and no id, and changes nothing', () => {
    const b = book();
    open(b);
    open(b);
    expect(decide(b, undefined, { kind: 'approve', at: 1 })).toEqual({ ok: false, warning: HUMAN_TEXTS.requests.ambiguous('approve', ['r1', 'r2']) });
    expect(HUMAN_TEXTS.requests.ambiguous('approve', ['r1', 'r2'])).toBe(
      'ignored approve signal: 2 requests are pending (r1, r2); name one with requestId (--request)',
    );
    expect(pendingRequests(b)).toHaveLength(2);
  });

  it('names the open ids when the id matches none, and warns when nothing is open', () => {
    const b = book();
    open(b);
    expect(decide(b, 'r77', { kind: 'reject', text: 'no', at: 1 })).toEqual({
      ok: false,
      warning: 'ignored reject signal: request r77 is not pending (pending: r1)',
    });
    expect(decide(book(), 'r77', { kind: 'answer', text: 'a', at: 1 })).toEqual({
      ok: false,
      warning: 'ignored answer signal: request r77 is not pending (pending: none)',
    });
    expect(decide(book(), undefined, { kind: 'approve', at: 1 })).toEqual({
      ok: false,
      warning: 'ignored approve signal: no request is pending',
    });
  });

  it('a request cannot be decided twice', () => {
    const b = book();
    open(b);
    expect(decide(b, 'r1', { kind: 'approve', at: 1 }).ok).toBe(true);
    expect(decide(b, 'r1', { kind: 'reject', text: 'late', at: 2 })).toEqual({
      ok: false,
      warning: 'ignored reject signal: request r1 is not pending: it was decided already (pending: none)',
    });
  });
});

describe('taking decided requests', () => {
  it('returns them in the order the decisions arrived, and removes only those', () => {
    const b = book();
    open(b, true);
    open(b, true);
    open(b);
    decide(b, 'r2', { kind: 'approve', at: 1 });
    decide(b, 'r1', { kind: 'reject', text: 'no', at: 2 });
    expect(holdsResults(b)).toBe(true);
    expect(takeDecided(b, (r) => r.held !== undefined).map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(b.requests.map((r) => r.id)).toEqual(['r3']);
    expect(holdsResults(b)).toBe(false);
    expect(awaitingHumans(b)).toBe(true);
  });

  it('leaves decided requests the filter does not take', () => {
    const b = book();
    open(b, true);
    open(b);
    decide(b, 'r2', { kind: 'approve', at: 1 });
    expect(takeDecided(b, (r) => r.held !== undefined)).toEqual([]);
    expect(takeDecided(b, (r) => r.id === 'r2').map((r) => r.id)).toEqual(['r2']);
  });
});

describe('exact gates', () => {
  const gate = (b: RequestBook, kind: 'tool_call' | 'before_exit') => openRequest(b, { kind, agent: 'ops', summary: 'deploy', now: 1 });

  it('an answer never decides a tool call or a final approval; approve and reject do', () => {
    for (const kind of ['tool_call', 'before_exit'] as const) {
      const b = book();
      const { digest } = gate(b, kind);
      expect(decide(b, 'r1', { kind: 'answer', text: 'no - do not deploy', at: 2 })).toEqual({
        ok: false,
        warning: HUMAN_TEXTS.requests.answerToGate('r1', kind),
      });
      expect(pendingRequests(b).map((r) => r.id)).toEqual(['r1']);
      expect(decide(b, 'r1', { kind: 'reject', text: 'no', at: 3, digest })).toMatchObject({ ok: true });
    }
    // a question an agent asked is still answered
    const b = book();
    openRequest(b, { kind: 'clarification', agent: 'writer', summary: 'which year?', now: 1 });
    expect(decide(b, 'r1', { kind: 'answer', text: '2026', at: 2 })).toMatchObject({ ok: true });
  });

  it('a decision for the request that opens next is kept and applied when it opens', () => {
    const b = book();
    // the approve signal was applied before the result that opens r1 (one activation, on a task retry)
    // the human saw r1 (and its digest) from a task that later failed
    const digest = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: '', text: '' });
    expect(decide(b, 'r1', { kind: 'approve', at: 2, by: 'ana', digest })).toEqual({ ok: false, kept: true });
    const r1 = gate(b, 'tool_call');
    expect(decideKept(b, r1)?.outcome).toMatchObject({ ok: true, request: { id: 'r1', decision: { kind: 'approve', by: 'ana', digest } } });
    expect(pendingRequests(b)).toEqual([]);
    expect(keptDecisions(b)).toEqual([]);
  });

  it('a kept answer to a gate is turned away when the gate opens', () => {
    const b = book();
    decide(b, 'r1', { kind: 'answer', text: 'no', at: 2 });
    const r1 = gate(b, 'tool_call');
    expect(decideKept(b, r1)?.outcome).toEqual({ ok: false, warning: HUMAN_TEXTS.requests.answerToGate('r1', 'tool_call') });
    expect(pendingRequests(b).map((r) => r.id)).toEqual(['r1']);
  });

  it('keeps only ids of requests not opened yet, within reach, once each, and a bounded number', () => {
    const b = book();
    const { digest } = gate(b, 'tool_call');
    decide(b, 'r1', { kind: 'approve', at: 2, digest });
    // r1 was opened already: a second decision is no early one
    expect(decide(b, 'r1', { kind: 'approve', at: 3 })).toMatchObject({ ok: false, warning: expect.stringContaining('not pending') });
    for (const id of ['r0', 'x7', 'r01', `r${2 + EARLY_DECISION_LIMITS.ahead}`]) {
      expect(decide(b, id, { kind: 'approve', at: 3 })).toMatchObject({ ok: false, warning: expect.any(String) });
    }
    expect(decide(b, 'r2', { kind: 'approve', at: 3 })).toEqual({ ok: false, kept: true });
    expect(decide(b, 'r2', { kind: 'reject', text: 'no', at: 4 })).toMatchObject({ ok: false, warning: expect.any(String) });
    for (let n = 3; n < 2 + EARLY_DECISION_LIMITS.ahead; n += 1) decide(b, `r${n}`, { kind: 'approve', at: 5 });
    expect(keptDecisions(b)).toHaveLength(EARLY_DECISION_LIMITS.kept);
  });
});
