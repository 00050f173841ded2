import { parseSignalPayload, MAX_SIGNAL_PAYLOAD_BYTES, MAX_SIGNAL_TEXT_BYTES } from '../../../../src/core/humans/signals';
import {
  createRunState,
  MAX_QUEUED_MESSAGE_BYTES,
  MAX_QUEUED_MESSAGES,
  MAX_SIGNAL_TYPES,
  MAX_SIGNALS,
  MAX_WARNING_CHARS,
  MAX_WARNINGS,
  queueMessage,
  recordInLedger,
  warn,
} from '../../../../src/core/state/state';
import { STATE_TEXTS } from '../../../../src/core/state/texts';
import { utf8ByteLength } from '../../../../src/core/text/utf8';
import { compileYaml } from '../../../helpers/compile';

const graph = compileYaml(`
name: bounded
agents:
  writer: { instructions: Write. }
  critic: { instructions: Review. }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 2
`);

const fresh = () => createRunState(graph, 'task', 'wf', 0);
const message = (text: string) => ({ kind: 'user_message' as const, text, from: 'user' });

describe('warnings', () => {
  test(`past ${MAX_WARNINGS} the oldest go, and the first line counts them`, () => {
    const state = fresh();
    for (let i = 0; i < 1000; i += 1) warn(state, `w${i}`);
    expect(state.warnings).toHaveLength(MAX_WARNINGS);
    expect(state.warnings[0]).toBe(STATE_TEXTS.warningsDropped(1000 - (MAX_WARNINGS - 1), MAX_WARNINGS - 1));
    expect(state.warnings[1]).toBe(`w${1000 - (MAX_WARNINGS - 1)}`);
    expect(state.warnings[MAX_WARNINGS - 1]).toBe('w999');
    expect(state.warningsDropped).toBe(1000 - (MAX_WARNINGS - 1));
  });

  test('a long warning is cut, and a repeat of the last one is not added', () => {
    const state = fresh();
    warn(state, 'x'.repeat(10_000));
    warn(state, 'x'.repeat(10_000));
    expect(state.warnings).toEqual([`${'x'.repeat(MAX_WARNING_CHARS)}…`]);
  });
});

describe('queued human messages', () => {
  test(`at most ${MAX_QUEUED_MESSAGES} wait for one agent, and as many for the next wave; the rest are turned away with a warning`, () => {
    const state = fresh();
    for (let i = 0; i < 100; i += 1) queueMessage(state, 'writer', message(`m${i}`));
    for (let i = 0; i < 100; i += 1) queueMessage(state, undefined, message(`b${i}`));
    expect(state.notes.writer.map((n) => n.text)).toEqual(Array.from({ length: MAX_QUEUED_MESSAGES }, (_, i) => `m${i}`));
    expect(state.broadcast).toHaveLength(MAX_QUEUED_MESSAGES);
    expect(state.warnings).toEqual([STATE_TEXTS.messageDropped('writer', MAX_QUEUED_MESSAGES), STATE_TEXTS.messageDropped(undefined, MAX_QUEUED_MESSAGES)]);
  });

  test(`all waiting messages hold at most ${MAX_QUEUED_MESSAGE_BYTES / 1024} KiB together`, () => {
    const state = fresh();
    const big = 'y'.repeat(15 * 1024);
    let queued = 0;
    for (let i = 0; i < 40; i += 1) if (queueMessage(state, i % 2 ? 'writer' : 'critic', message(big))) queued += 1;
    expect(queued).toBe(Math.floor(MAX_QUEUED_MESSAGE_BYTES / (15 * 1024)));
    expect(state.warnings).toEqual([STATE_TEXTS.messagesFull(MAX_QUEUED_MESSAGE_BYTES)]);
  });

  test('other notes (the goal framework, answers) are not counted against the cap', () => {
    const state = fresh();
    state.notes.writer = [{ kind: 'goal_framework', text: 'g' }];
    for (let i = 0; i < MAX_QUEUED_MESSAGES; i += 1) expect(queueMessage(state, 'writer', message(`m${i}`))).toBe(true);
    expect(state.notes.writer).toHaveLength(MAX_QUEUED_MESSAGES + 1);
  });
});

describe('the signal ledger', () => {
  test(`keeps the last ${MAX_SIGNALS} signals and says older ones were dropped`, () => {
    const state = fresh();
    for (let i = 0; i < MAX_SIGNALS + 10; i += 1) recordInLedger(state, { type: 'ping', payload: i, at: 't' });
    expect(state.signals).toHaveLength(MAX_SIGNALS);
    expect(state.signals[0].payload).toBe(10);
    expect(state.warnings).toEqual([STATE_TEXTS.signalsDropped(MAX_SIGNALS)]);
  });

  test(`signal_observed sees at most ${MAX_SIGNAL_TYPES} types a round; the others are in the ledger with a warning`, () => {
    const state = fresh();
    for (let i = 0; i < MAX_SIGNAL_TYPES + 5; i += 1) recordInLedger(state, { type: `t${i}`, at: 't' });
    expect(state.round.signals).toHaveLength(MAX_SIGNAL_TYPES);
    expect(state.signals).toHaveLength(MAX_SIGNAL_TYPES + 5);
    expect(state.warnings.at(-1)).toBe(STATE_TEXTS.signalTypesFull(`t${MAX_SIGNAL_TYPES + 4}`, MAX_SIGNAL_TYPES));
  });
});

describe('signal payloads are bounded before they reach the state', () => {
  test(`texts are cut to ${MAX_SIGNAL_TEXT_BYTES / 1024} KiB with a marker`, () => {
    const r = parseSignalPayload('message', { text: 'z'.repeat(100_000) });
    expect(r.ok).toBe(true);
    const text = (r as { value: { text: string } }).value.text;
    expect(utf8ByteLength(text)).toBeLessThanOrEqual(MAX_SIGNAL_TEXT_BYTES);
    expect(text).toMatch(/\[troupe: truncated \d+ bytes\]$/);
  });

  test(`a signal payload over ${MAX_SIGNAL_PAYLOAD_BYTES / 1024} KiB, or a type or request id over 64 characters, is malformed`, () => {
    expect(parseSignalPayload('signal', { type: 'big', payload: { blob: 'q'.repeat(20_000) } })).toEqual({
      ok: false,
      warning: 'ignored malformed signal signal: payload: must be at most 16 KiB as JSON',
    });
    expect(parseSignalPayload('signal', { type: 'a'.repeat(65) }).ok).toBe(false);
    expect(parseSignalPayload('approve', { requestId: 'r'.repeat(65) }).ok).toBe(false);
  });

  test('a malformed payload with a huge unknown key gives a short warning', () => {
    const r = parseSignalPayload('message', { text: 'hi', ['k'.repeat(100_000)]: 1 });
    expect(r.ok).toBe(false);
    expect((r as { warning: string }).warning.length).toBeLessThan(400);
  });
});
