import { parseSignalPayload, signalPayloadSchemas } from '../../../../src/core/humans/signals';

describe('parseSignalPayload: valid payloads', () => {
  it('knows every signal of §7', () => {
    expect(Object.keys(signalPayloadSchemas())).toEqual(['pause', 'resume', 'approve', 'reject', 'answer', 'message', 'signal', 'stop']);
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
