import {
  formatRequestId,
  parseSignalPayload,
  resolveDecision,
  SIGNAL_NAMES,
  type PendingRequest,
} from '../../src/core/humans/signals';

const req = (id: string, kind: PendingRequest['kind'] = 'approval'): PendingRequest => ({
  id,
  kind,
  agent: 'writer',
  summary: 's',
  since: 0,
});

describe('request ids', () => {
  it('are r1, r2, … from the counter', () => {
    expect([1, 2, 10].map(formatRequestId)).toEqual(['r1', 'r2', 'r10']);
  });
});

describe('resolveDecision', () => {
  it('takes the only pending request when no id is given', () => {
    expect(resolveDecision([req('r1')], undefined, 'approve')).toEqual({ ok: true, request: req('r1') });
  });

  it('takes the named request among several (id as string or in the payload)', () => {
    const pending = [req('r1'), req('r2', 'clarification')];
    expect(resolveDecision(pending, 'r2', 'answer')).toEqual({ ok: true, request: pending[1] });
    expect(resolveDecision(pending, { requestId: 'r1' }, 'reject')).toEqual({ ok: true, request: pending[0] });
  });

  it('is ambiguous with several pending and no id', () => {
    expect(resolveDecision([req('r1'), req('r2')], {}, 'approve')).toEqual({
      ok: false,
      warning: 'ignored approve signal: 2 requests are pending (r1, r2); name one with requestId (--request)',
    });
  });

  it('names the pending ids when the id matches none', () => {
    expect(resolveDecision([req('r1')], 'r7', 'reject')).toEqual({
      ok: false,
      warning: 'ignored reject signal: request r7 is not pending (pending: r1)',
    });
    expect(resolveDecision([], 'r7', 'answer')).toEqual({
      ok: false,
      warning: 'ignored answer signal: request r7 is not pending (pending: none)',
    });
  });

  it('warns when nothing is pending', () => {
    expect(resolveDecision([], undefined, 'approve')).toEqual({
      ok: false,
      warning: 'ignored approve signal: no request is pending',
    });
  });
});

describe('parseSignalPayload: valid payloads', () => {
  it('knows every signal of §7', () => {
    expect(SIGNAL_NAMES).toEqual(['pause', 'resume', 'approve', 'reject', 'answer', 'message', 'signal', 'stop']);
  });

  it('pause and resume take no payload (undefined, null or {})', () => {
    for (const raw of [undefined, null, {}]) {
      expect(parseSignalPayload('pause', raw)).toEqual({ ok: true, value: {} });
      expect(parseSignalPayload('resume', raw)).toEqual({ ok: true, value: {} });
    }
  });

  it('approve: requestId and note are optional; a missing payload is {}', () => {
    expect(parseSignalPayload('approve', undefined)).toEqual({ ok: true, value: {} });
    expect(parseSignalPayload('approve', { requestId: 'r2', note: 'lgtm' })).toEqual({
      ok: true,
      value: { requestId: 'r2', note: 'lgtm' },
    });
  });

  it('reject, answer, message, signal and stop parse their fields', () => {
    expect(parseSignalPayload('reject', { reason: 'cite sources' })).toEqual({ ok: true, value: { reason: 'cite sources' } });
    expect(parseSignalPayload('answer', { requestId: 'r1', text: 'use v2' })).toEqual({
      ok: true,
      value: { requestId: 'r1', text: 'use v2' },
    });
    expect(parseSignalPayload('message', { text: 'hi', to: 'critic' })).toEqual({ ok: true, value: { text: 'hi', to: 'critic' } });
    expect(parseSignalPayload('signal', { type: 'ship_it', payload: { n: 1 } })).toEqual({
      ok: true,
      value: { type: 'ship_it', payload: { n: 1 } },
    });
    expect(parseSignalPayload('stop', undefined)).toEqual({ ok: true, value: {} });
    expect(parseSignalPayload('stop', { reason: 'enough' })).toEqual({ ok: true, value: { reason: 'enough' } });
  });
});

describe('parseSignalPayload: malformed payloads become warnings', () => {
  it('reject needs a non-empty reason', () => {
    for (const raw of [{}, { reason: '' }, { reason: '   ' }, undefined]) {
      const r = parseSignalPayload('reject', raw);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.warning).toBe('ignored malformed reject signal: reason: must be a non-empty string');
    }
  });

  it('answer and message need non-empty text', () => {
    expect(parseSignalPayload('answer', { requestId: 'r1' }).ok).toBe(false);
    expect(parseSignalPayload('message', { text: '' }).ok).toBe(false);
    expect(parseSignalPayload('message', 'hello').ok).toBe(false);
  });

  it('signal type must match [a-z][a-z0-9_]*', () => {
    const r = parseSignalPayload('signal', { type: 'Ship-It' });
    expect(r).toEqual({ ok: false, warning: 'ignored malformed signal signal: type: must match [a-z][a-z0-9_]*' });
  });

  it('unknown keys are rejected so a typo is not silently ignored', () => {
    const r = parseSignalPayload('approve', { reqestId: 'r1' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.warning).toMatch(/^ignored malformed approve signal: .*reqestId/);
  });

  it('wrong types and non-object payloads are rejected', () => {
    expect(parseSignalPayload('approve', { requestId: 1 }).ok).toBe(false);
    expect(parseSignalPayload('stop', 'now').ok).toBe(false);
    expect(parseSignalPayload('pause', { now: true }).ok).toBe(false);
    expect(parseSignalPayload('pause', 5).ok).toBe(false);
  });

  it('an unknown signal name is a warning, not an exception', () => {
    expect(parseSignalPayload('explode', {})).toEqual({ ok: false, warning: 'ignored unknown signal explode' });
  });
});
