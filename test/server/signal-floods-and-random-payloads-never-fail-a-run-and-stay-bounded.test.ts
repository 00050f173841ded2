/**
 * Hostile signals against real runs (docs/semantics.md, "Bounds on hostile input"): random sequences of
 * random payloads (decisions before any request, duplicate decisions, malformed and unknown
 * payloads), and 10,000 `message` signals to one run. The run never fails, the lists that grow with
 * signals stay within their caps (what does not fit is a warning), and the run then completes.
 */
import fc from 'fast-check';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';
import { fuzzRuns } from '../helpers/fuzz';
import { MAX_QUEUED_MESSAGES, MAX_SIGNALS, MAX_WARNINGS } from '../../src/core/state/state';
import { STATE_TEXTS } from '../../src/core/state/texts';

const PIPELINE = `
name: flood
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review." }
collaboration:
  topology: pipeline
  agents: [writer, critic]
`;

const HITL = `
name: flood-hitl
agents:
  writer: { instructions: "Write; ask a human first.", tools: [signal] }
  critic: { instructions: "Review." }
collaboration:
  topology: pipeline
  agents: [writer, critic]
`;

const NAMES = ['pause', 'resume', 'approve', 'reject', 'answer', 'message', 'signal', 'no_such_signal'] as const;

/** A payload: a well-formed one for some signal, or anything JSON can carry. */
const payload = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 40 }), to: fc.constantFrom(undefined, 'writer', 'critic', 'nobody') }, { requiredKeys: ['text'] }),
  fc.record({ requestId: fc.constantFrom('r1', 'r2', 'r99', ''), reason: fc.string({ maxLength: 20 }), note: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }),
  fc.record({ type: fc.constantFrom('done', 'ping', 'Bad Type', 'x'.repeat(70)), payload: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: ['type'] }),
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(undefined),
  fc.string({ unit: 'binary', maxLength: 50 }),
);

const sequence = fc.array(fc.record({ name: fc.constantFrom(...NAMES), payload }), { minLength: 1, maxLength: 60 });

/** Runs `fn` over `items` with at most `width` at a time. */
async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

describe('hostile signals', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('random sequences of random payloads while an agent works: the run completes, its lists within their caps', async () => {
    await fc.assert(
      fc.asyncProperty(sequence, async (signals) => {
        h.stub.reset();
        const gate = stubGate();
        h.stub.script('writer', [gate.hold({ text: 'draft' })]);
        const handle = await h.start(PIPELINE);
        await h.stub.waitForRequests(1, 'writer');
        for (const s of signals) await handle.signal(s.name, s.payload as never);
        await handle.signal('resume');
        gate.open();
        const r = await handle.result();
        expect(r).toMatchObject({ status: 'completed', reason: 'exit', steps: 2 });
        expect(r.warnings.length).toBeLessThanOrEqual(MAX_WARNINGS);
        expect(r.signals.length).toBeLessThanOrEqual(MAX_SIGNALS);
        expect(r.warnings.every((w) => w.length <= 1001)).toBe(true);
      }),
      fuzzRuns(20),
    );
  });

  test('a decision for the request that opens next is kept and decides it; one naming nothing and duplicates are warnings', async () => {
    const gate = stubGate();
    h.stub.script('writer', [gate.hold({ toolCalls: [{ name: 'signal', arguments: { type: 'need_approval', summary: 'ship it?' } }] }), { text: 'shipped' }]);
    const handle = await h.start(HITL);
    await h.stub.waitForRequests(1, 'writer');
    // r1 opens when the writer's reply comes back: this approval is kept until then
    await handle.signal('approve', { requestId: 'r1', note: 'early yes', by: 'ana' });
    await handle.signal('answer', { text: 'early' });
    await handle.signal('approve', { requestId: 'r1', note: 'twice' });
    await waitForStatus(handle, (s) => s.warnings.length === 2);
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit' });
    expect(r.decisions).toEqual([expect.objectContaining({ requestId: 'r1', kind: 'approve', text: 'early yes', by: 'ana' })]);
    expect(r.warnings).toEqual([
      'ignored answer signal: no request is pending',
      'ignored approve signal: request r1 is not pending (pending: none)',
    ]);
    expect(h.stub.requestsFor('critic')).toHaveLength(1);
  });

  test('10,000 message signals to one run: at most 20 per turn reach the prompts, the rest are warnings, and the run completes', async () => {
    const gate = stubGate();
    h.stub.script('writer', [gate.hold({ text: 'draft' })]);
    const handle = await h.start(PIPELINE);
    await h.stub.waitForRequests(1, 'writer');
    const started = Date.now();
    const floods = Array.from({ length: 10_000 }, (_, i) => (i % 2 ? { text: `flood-${i} to critic`, to: 'critic' } : { text: `flood-${i} to all` }));
    // four at a time: the server fails a workflow task while over 100 signals wait behind it, and a
    // wider flood turns that into a replay storm (docs/semantics.md, "Bounds on hostile input")
    await pool(floods, 4, (p) => handle.signal('message', p));
    const sendMs = Date.now() - started;
    const during = await waitForStatus(handle, (s) => s.warnings.includes(STATE_TEXTS.messageDropped('critic', MAX_QUEUED_MESSAGES)), 60_000);
    expect(during.phase).toBe('running');
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', steps: 2 });
    expect(r.warnings.length).toBeLessThanOrEqual(MAX_WARNINGS);
    const prompt = h.stub.requestsFor('critic')[0].prompt;
    const reached = prompt.match(/flood-\d+/g) ?? [];
    expect(reached.length).toBe(2 * MAX_QUEUED_MESSAGES);
    expect(prompt.length).toBeLessThan(64 * 1024);
    expect(sendMs).toBeLessThan(120_000);
  });
});
