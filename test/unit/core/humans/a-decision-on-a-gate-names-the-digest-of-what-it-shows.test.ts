/**
 * No blind approvals (docs/semantics.md, "Humans in the loop", "Gates"): a gate (a tool call, the
 * final result) opens with the digest of exactly what it shows; `approve` and `reject` must name
 * it. A decision that names none, or another, is refused — recorded with its reason and warned of —
 * and the gate stays open; an early decision is applied when its gate opens only if it names the
 * digest the gate opened with. Requests that are no gate keep their rules.
 */
import { createHash } from 'node:crypto';
import { gateDigest } from '../../../../src/core/humans/digest';
import { checkDecision, decide, keptDecisions, openRequest, pendingRequests, type RequestBook } from '../../../../src/core/humans/requests';
import { decisionsOf, openHumanRequest, takeDecision } from '../../../../src/core/humans/decisions';
import { parseSignalPayload } from '../../../../src/core/humans/signals';
import { HUMAN_TEXTS } from '../../../../src/core/humans/texts';
import { buildRunResult, buildStatusView } from '../../../../src/core/ending/result';
import { createRunState } from '../../../../src/core/state/state';
import { CLI_RUN_TEXTS } from '../../../../src/cli/run-texts';
import { compileYaml } from '../../../helpers/compile';

const ARGS = '{"target":"production-db"}';
const book = (): RequestBook => ({ requests: [], requestCounter: 0 });
const openCall = (b: RequestBook, text = ARGS) =>
  openRequest(b, { kind: 'tool_call', agent: 'ops', summary: 'delete_all', payload: { tool: 'delete_all', arguments: text }, gate: { tool: 'delete_all', text }, now: 1 });

const graph = compileYaml(`
name: gated
task: t
agents:
  ops: { instructions: "Operate." }
collaboration:
  topology: pipeline
  agents: [ops]
`);

describe('the digest of what a gate shows', () => {
  it('is sha256: and the full hex of the canonical form ["troupe.gate/1", kind, id, agent, tool, text]', () => {
    const shown = { kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'delete_all', text: ARGS };
    const hex = createHash('sha256').update(JSON.stringify(['troupe.gate/1', 'tool_call', 'r1', 'ops', 'delete_all', ARGS]), 'utf8').digest('hex');
    expect(gateDigest(shown)).toBe(`sha256:${hex}`);
    expect(gateDigest(shown)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('changes with every part: kind, request, agent, tool and every character of the text', () => {
    const base = { kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'delete_all', text: ARGS };
    const variants = [
      { ...base, kind: 'before_exit' },
      { ...base, requestId: 'r2' },
      { ...base, agent: 'dev' },
      { ...base, tool: 'delete_al' },
      { ...base, text: '{"target":"production-db "}' },
      // the parts cannot run into each other
      { ...base, tool: 'delete_all"', text: ARGS.slice(1) },
    ];
    const digests = new Set([base, ...variants].map(gateDigest));
    expect(digests.size).toBe(variants.length + 1);
  });

  it('is given to gates when they open, shown with the pending request, and to no other request', () => {
    const b = book();
    const call = openCall(b);
    const exit = openRequest(b, { kind: 'before_exit', agent: 'ops', summary: 'approve the final result', gate: { tool: '', text: 'the result' }, now: 1 });
    const question = openRequest(b, { kind: 'clarification', agent: 'ops', summary: 'which db?', now: 1 });
    expect(call.digest).toBe(gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'delete_all', text: ARGS }));
    expect(exit.digest).toBe(gateDigest({ kind: 'before_exit', requestId: 'r2', agent: 'ops', tool: '', text: 'the result' }));
    expect(question).not.toHaveProperty('digest');
    expect(pendingRequests(b).map((p) => p.digest)).toEqual([call.digest, exit.digest, undefined]);
  });
});

describe('a decision on a gate', () => {
  it('that names no digest is refused, says why, and changes nothing', () => {
    const b = book();
    openCall(b);
    const before = JSON.parse(JSON.stringify(b));
    const verdict = checkDecision(b, 'r1', { kind: 'approve', at: 2, by: 'mallory' });
    expect(verdict).toEqual({
      ok: false,
      refusal: { code: 'no_digest', requestId: 'r1', reason: HUMAN_TEXTS.requests.noDigest },
      request: expect.objectContaining({ id: 'r1', kind: 'tool_call' }),
    });
    expect(b).toEqual(before);
    expect(decide(b, 'r1', { kind: 'approve', at: 2 })).toEqual({
      ok: false,
      refused: { request: expect.objectContaining({ id: 'r1', kind: 'tool_call' }), reason: HUMAN_TEXTS.requests.noDigest },
      warning: HUMAN_TEXTS.requests.refused('approve', 'r1', 'tool_call', HUMAN_TEXTS.requests.noDigest),
    });
    expect(pendingRequests(b).map((p) => p.id)).toEqual(['r1']);
    expect(HUMAN_TEXTS.requests.refused('approve', 'r1', 'tool_call', HUMAN_TEXTS.requests.noDigest)).toBe(
      'refused approve signal for request r1 (tool_call): it names no digest: a decision on a gate names the digest of what the request shows ' +
        '(troupe status shows it; troupe approve and troupe reject send it); the request stays open',
    );
  });

  it('that names another digest is refused, a reject as much as an approve', () => {
    const b = book();
    openCall(b);
    const other = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'delete_all', text: '{"target":"staging"}' });
    for (const kind of ['approve', 'reject'] as const) {
      expect(decide(b, 'r1', { kind, text: 'x', at: 2, digest: other })).toMatchObject({
        ok: false,
        refused: { reason: `it names digest ${other.slice(0, 80)}, which is not the digest of what the request shows` },
      });
    }
    expect(pendingRequests(b)).toHaveLength(1);
  });

  it('that names its digest decides it, also when it goes to the only open request without an id', () => {
    const b = book();
    const { digest } = openCall(b);
    expect(checkDecision(b, undefined, { kind: 'approve', at: 2, digest })).toMatchObject({ ok: true, request: { id: 'r1' } });
    expect(decide(b, undefined, { kind: 'approve', at: 2, digest })).toMatchObject({ ok: true, request: { id: 'r1', decision: { digest } } });
    expect(pendingRequests(b)).toEqual([]);
  });

  it('is refused on a request that is no gate only when it matches nothing, as before: no digest is asked for', () => {
    const b = book();
    openRequest(b, { kind: 'approval', agent: 'ops', summary: 'ship?', now: 1 });
    openRequest(b, { kind: 'clarification', agent: 'ops', summary: 'which?', now: 1 });
    expect(decide(b, 'r1', { kind: 'approve', at: 2 })).toMatchObject({ ok: true });
    expect(decide(b, 'r2', { kind: 'answer', text: 'that one', at: 2 })).toMatchObject({ ok: true });
  });
});

describe('a refused decision in the run', () => {
  const run = () => createRunState(graph, 't', 'wf-1', 1_000);

  it('is recorded as refused, with its reason, in the decisions, the transcript, status and the RunResult, with a warning', () => {
    const state = run();
    openHumanRequest(state, { kind: 'tool_call', agent: 'ops', summary: 'delete_all', gate: { tool: 'delete_all', text: ARGS }, now: 2_000 });
    takeDecision(state, 'r1', { kind: 'approve', at: Date.UTC(2026, 10, 5, 12, 0, 1), by: 'mallory' });
    const record = {
      requestId: 'r1',
      request: 'tool_call',
      agent: 'ops',
      kind: 'approve',
      by: 'mallory',
      at: '2026-11-05T12:00:01.000Z',
      refused: HUMAN_TEXTS.requests.noDigest,
    };
    expect(decisionsOf(state)).toEqual([record]);
    expect(state.transcript).toEqual([expect.objectContaining({ kind: 'decision', agent: 'ops', decision: record })]);
    expect(state.warnings).toEqual([HUMAN_TEXTS.requests.refused('approve', 'r1', 'tool_call', HUMAN_TEXTS.requests.noDigest)]);
    const view = buildStatusView(state, 3_000, []);
    expect(view.decisions).toEqual([record]);
    expect(view.pending).toEqual([expect.objectContaining({ id: 'r1', digest: state.requests[0].digest })]);
    expect(buildRunResult(state, { status: 'cancelled', reason: 'user_stop', reasonText: 'stopped' }, 3_000).decisions).toEqual([record]);
    expect(CLI_RUN_TEXTS.decision(record as never)).toBe(
      `  ⊘ r1 (tool_call) ops approve by mallory at 2026-11-05T12:00:01.000Z refused: ${HUMAN_TEXTS.requests.noDigest}`,
    );
  });

  it('a blind approve sent before its gate opens is kept, then refused when the gate opens: the gate waits', () => {
    const state = run();
    // sent right after start, before r1 exists: kept (nobody can tell yet whether r1 will be a gate)
    expect(takeDecision(state, 'r1', { kind: 'approve', at: 1_500, by: 'mallory' })).toEqual({ ok: false, kept: true });
    expect(decisionsOf(state)).toEqual([]);
    const r1 = openHumanRequest(state, { kind: 'tool_call', agent: 'ops', summary: 'delete_all', gate: { tool: 'delete_all', text: ARGS }, now: 2_000 });
    expect(pendingRequests(state).map((p) => p.id)).toEqual(['r1']);
    expect(decisionsOf(state)).toEqual([expect.objectContaining({ requestId: 'r1', kind: 'approve', by: 'mallory', refused: HUMAN_TEXTS.requests.noDigest })]);
    expect(keptDecisions(state)).toEqual([]);
    // a real decision, naming what it saw, decides it
    expect(takeDecision(state, 'r1', { kind: 'approve', at: 3_000, by: 'ana', digest: r1.digest })).toMatchObject({ ok: true });
    expect(decisionsOf(state).map((d) => [d.by, d.refused === undefined])).toEqual([
      ['mallory', false],
      ['ana', true],
    ]);
  });

  it('an early decision naming the digest the gate opens with is applied when it opens; one naming another is refused', () => {
    const state = run();
    const right = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'delete_all', text: ARGS });
    takeDecision(state, 'r1', { kind: 'approve', at: 1_500, by: 'ana', digest: right });
    openHumanRequest(state, { kind: 'tool_call', agent: 'ops', summary: 'delete_all', gate: { tool: 'delete_all', text: ARGS }, now: 2_000 });
    expect(pendingRequests(state)).toEqual([]);
    expect(decisionsOf(state)).toEqual([expect.objectContaining({ requestId: 'r1', by: 'ana', digest: right })]);
    expect(decisionsOf(state)[0]).not.toHaveProperty('refused');

    const other = run();
    takeDecision(other, 'r1', { kind: 'approve', at: 1_500, by: 'mallory', digest: right });
    openHumanRequest(other, { kind: 'tool_call', agent: 'ops', summary: 'delete_all', gate: { tool: 'delete_all', text: '{"target":"prod"}' }, now: 2_000 });
    expect(pendingRequests(other).map((p) => p.id)).toEqual(['r1']);
    expect(decisionsOf(other)).toEqual([expect.objectContaining({ refused: HUMAN_TEXTS.requests.otherDigest(right) })]);
  });

  it('an early decision for a request that is no gate is applied when it opens, as before', () => {
    const state = run();
    takeDecision(state, 'r1', { kind: 'answer', text: 'the staging one', at: 1_500, by: 'ana' });
    openHumanRequest(state, { kind: 'clarification', agent: 'ops', summary: 'which db?', held: { text: 'q', triggers: [] }, now: 2_000 });
    expect(pendingRequests(state)).toEqual([]);
    expect(decisionsOf(state)).toEqual([expect.objectContaining({ requestId: 'r1', kind: 'answer', text: 'the staging one' })]);
  });
});

describe('the decision payloads', () => {
  const digest = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 't', text: '{}' });

  it('approve and reject take a digest; answer does not', () => {
    expect(parseSignalPayload('approve', { requestId: 'r1', digest })).toEqual({ ok: true, value: { requestId: 'r1', digest } });
    expect(parseSignalPayload('reject', { reason: 'no', digest })).toEqual({ ok: true, value: { reason: 'no', digest } });
    expect(parseSignalPayload('answer', { text: 'x', digest }).ok).toBe(false);
  });

  it('a digest that is not one is a malformed payload, ignored with a warning', () => {
    for (const bad of ['sha256:XYZ', digest.toUpperCase(), `${digest}\u001b[2J`, 'md5:abc', 42]) {
      const r = parseSignalPayload('approve', { requestId: 'r1', digest: bad });
      expect(r.ok).toBe(false);
    }
    expect(parseSignalPayload('approve', { digest: 'sha256:x' })).toEqual({
      ok: false,
      warning: 'ignored malformed approve signal: digest: must be sha256: and 64 lowercase hex characters, as the request shows it',
    });
  });
});

describe('the CLI', () => {
  it("shows a gate's digest with its commands, and says what it sent and what the run answered", () => {
    const b = book();
    const r1 = openCall(b);
    const [pending] = pendingRequests(b);
    expect(CLI_RUN_TEXTS.awaiting('wf', pending).split('\n')).toContain(`     digest:  ${r1.digest}`);
    expect(CLI_RUN_TEXTS.decided('approve', 'r1', 'ana', 'wf', r1.digest, 'applied to r1: x')).toBe(`approve (r1, ${r1.digest}) by ana to wf: applied to r1: x`);
    expect(CLI_RUN_TEXTS.decided('answer', 'r2', 'ana', 'wf', undefined, 'refused: y')).toBe('answer (r2) by ana to wf: refused: y');
    expect(CLI_RUN_TEXTS.decided('approve', undefined, 'ana', 'wf', undefined, 'refused: z')).toBe('approve by ana to wf: refused: z');
  });
});
