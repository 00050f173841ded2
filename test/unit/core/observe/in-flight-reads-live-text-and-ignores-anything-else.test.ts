/**
 * Reading a model call's heartbeat detail back (docs/observability.md, "Live output"): a LiveText
 * is taken, anything else (an older worker's empty beat, a tool's own details, garbage) is no call;
 * the in-flight agents of a status are joined with the text each is writing, an agent's own call
 * before a compaction or judge of it.
 */
import { inFlightEntries, parseLiveText, type InFlightCall } from '../../../../src/core/observe/live';
import { LIVE_TEXT_LIMITS } from '../../../../src/core/observe/live';

const LIVE_TEXT_MAX_CHARS = LIVE_TEXT_LIMITS.tailChars;

const call = (agent: string, kind: InFlightCall['kind'], partialText: string, lastHeartbeatAt?: string): InFlightCall => ({
  agent,
  kind,
  partialText,
  chars: partialText.length,
  activityType: kind === 'agent' ? 'callAgent' : 'compactTranscript',
  activityId: `${agent}-${kind}`,
  attempt: 1,
  ...(lastHeartbeatAt ? { lastHeartbeatAt } : {}),
});

describe('parseLiveText', () => {
  it('takes the shared contract: agent, kind, partial text and count', () => {
    expect(parseLiveText({ agent: 'writer', kind: 'agent', partialText: 'Tides rise', chars: 10 })).toEqual({ agent: 'writer', kind: 'agent', partialText: 'Tides rise', chars: 10 });
    for (const kind of ['judge', 'compaction', 'selector'] as const) expect(parseLiveText({ agent: 'a', kind, partialText: '', chars: 0 })?.kind).toBe(kind);
  });

  it('keeps only the fields of the contract', () => {
    expect(parseLiveText({ agent: 'w', kind: 'agent', partialText: 'x', chars: 1, secret: 'k' })).toEqual({ agent: 'w', kind: 'agent', partialText: 'x', chars: 1 });
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['a number (a tool heartbeating its progress)', 42],
    ['a string', 'writing'],
    ['an array', [{ agent: 'w', kind: 'agent', partialText: '', chars: 0 }]],
    ['an empty object (an older worker)', {}],
    ['no agent', { kind: 'agent', partialText: '', chars: 0 }],
    ['an empty agent', { agent: '', kind: 'agent', partialText: '', chars: 0 }],
    ['an agent name longer than any role allows', { agent: 'a'.repeat(513), kind: 'agent', partialText: '', chars: 0 }],
    ['an unknown kind', { agent: 'w', kind: 'tool', partialText: '', chars: 0 }],
    ['a text that is not a string', { agent: 'w', kind: 'agent', partialText: ['x'], chars: 1 }],
    ['a negative count', { agent: 'w', kind: 'agent', partialText: '', chars: -1 }],
    ['a fractional count', { agent: 'w', kind: 'agent', partialText: '', chars: 1.5 }],
    ['a count that is a string', { agent: 'w', kind: 'agent', partialText: '', chars: '3' }],
    ['an infinite count', { agent: 'w', kind: 'agent', partialText: '', chars: Infinity }],
  ])('reads %s as no call', (_what, value) => {
    expect(parseLiveText(value)).toBeUndefined();
  });

  it('cuts a text longer than a heartbeat carries to its end, and never counts fewer characters than it holds', () => {
    const long = `${'a'.repeat(100)}${'b'.repeat(LIVE_TEXT_MAX_CHARS)}`;
    expect(parseLiveText({ agent: 'w', kind: 'agent', partialText: long, chars: 5 })).toEqual({ agent: 'w', kind: 'agent', partialText: 'b'.repeat(LIVE_TEXT_MAX_CHARS), chars: LIVE_TEXT_MAX_CHARS });
  });
});

describe('inFlightEntries', () => {
  it('lists the in-flight agents in the status order, each with its call when one is writing', () => {
    const entries = inFlightEntries(['scanner', 'parser'], [call('parser', 'agent', 'parsing…')]);
    expect(entries).toEqual([{ agent: 'scanner' }, { agent: 'parser', kind: 'agent', partialText: 'parsing…', chars: 8, activityType: 'callAgent', activityId: 'parser-agent', attempt: 1 }]);
    expect(Object.keys(entries[1])[0]).toBe('agent');
  });

  it("shows an agent's own model call before a compaction of it, and the latest report between equals", () => {
    const own = call('writer', 'agent', 'draft', '2026-01-01T00:00:01.000Z');
    const compaction = call('writer', 'compaction', 'summary', '2026-01-01T00:00:05.000Z');
    expect(inFlightEntries(['writer'], [compaction, own])[0]).toMatchObject({ kind: 'agent', partialText: 'draft' });
    const older = call('writer', 'compaction', 'old', '2026-01-01T00:00:01.000Z');
    expect(inFlightEntries(['writer'], [older, compaction])[0]).toMatchObject({ partialText: 'summary' });
  });

  it('leaves out calls of agents that are not in flight, and an agent without a call has its name only', () => {
    expect(inFlightEntries([], [call('critic', 'judge', '{"converged"')])).toEqual([]);
    expect(inFlightEntries(['writer'], [])).toEqual([{ agent: 'writer' }]);
  });
});
