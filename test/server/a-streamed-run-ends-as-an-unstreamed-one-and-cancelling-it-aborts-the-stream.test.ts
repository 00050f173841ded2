/**
 * Streamed model calls through the real workflow, worker, dev server and HTTP stub
 * (docs/observability.md, "Live output"):
 * - the same scripted runs, once with streaming off and once streamed in small chunks with tool-call
 *   fragments interleaved, end with the same RunResult byte for byte (but `activeMs`, the run's
 *   wall time) and the same number of history events: the reader assembles the reply the endpoint
 *   would send whole, and streaming adds no event;
 * - an endpoint that refuses `stream: true` is asked again without it, once, and every later call of
 *   the worker goes to it unstreamed at once;
 * - while a streamed call runs, its partial text is in the run's pending activity, and cancelling the
 *   run aborts the HTTP stream.
 */
import { defaultPayloadConverter, type WorkflowHandle } from '@temporalio/client';
import { main } from '../../src/cli/main';
import { ACTIVITY_TEXTS } from '../../src/activities/texts';
import type { RunResult } from '../../src/core/ending/result';
import { readLiveText, type LiveText } from '../../src/core/observe/live';
import { startHarness, type Harness } from '../helpers/runs';
import type { StubLlm } from '../helpers/stub-llm';
import { testAddress, uniqueWorkflowId } from '../helpers/temporal';

const DESK = `
name: desk
agents:
  triage: { instructions: "Route the request.", handoffs: edges }
  billing: { description: Handles invoices and refunds, instructions: "Bill." }
  tech: { description: Fixes technical problems, instructions: "Fix." }
collaboration:
  flow: [parent -> triage, triage -> billing, triage -> tech, billing -> parent, tech -> parent]
`;

const JUDGED = `
name: judged
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 5
  termination:
    any_of:
      - converged: { agent: critic, criteria: "the critic accepts the essay" }
`;

const LONG = (who: string) =>
  `${who}: ` + Array.from({ length: 12 }, (_, i) => `line ${i} with ünïcode 𝄞 and "quotes" {braces}`).join('\n');

/** The same script for every stub: two transfers in one reply, long texts, a judge that says no then yes. */
function script(stub: StubLlm): void {
  stub.script('triage', [
    {
      text: 'Routing this to billing first.',
      toolCalls: [
        { name: 'transfer_to_billing', arguments: { message: 'the customer was charged twice for invoice 42' } },
        { name: 'transfer_to_tech', arguments: { message: 'and the login page shows an error' } },
      ],
    },
  ]);
  stub.script('billing', [{ text: LONG('billing') }]);
  stub.script('writer', [{ text: LONG('draft one') }, { text: LONG('draft two') }]);
  stub.script('critic', [{ text: LONG('critique one') }, { text: LONG('critique two') }]);
  stub.script('judge:critic', [
    { text: JSON.stringify({ converged: false, reason: 'still weak' }) },
    { text: JSON.stringify({ converged: true, reason: 'accepted' }) },
  ]);
}

/** Polls the run's first pending activity until its heartbeat details are a LiveText that `pred` accepts. */
async function pendingLiveText(handle: WorkflowHandle, pred: (live: LiveText) => boolean, timeoutMs = 10_000): Promise<LiveText> {
  const deadline = Date.now() + timeoutMs;
  let last: LiveText | undefined;
  while (Date.now() < deadline) {
    const described = await handle.describe();
    const payload = described.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
    last = payload ? readLiveText(defaultPayloadConverter.fromPayload(payload)) : undefined;
    if (last && pred(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no such partial text in the pending activity; last: ${JSON.stringify(last)}`);
}

/** The run's result as JSON, without its wall time (the one field two runs cannot share). */
const comparable = (r: RunResult) => JSON.stringify({ ...r, activeMs: 0 });

describe('streamed model calls in runs', () => {
  let plain: Harness;
  let streamed: Harness;
  beforeAll(async () => {
    plain = await startHarness({ llm: { stream: false } });
    streamed = await startHarness();
    process.env.TEMPORAL_ADDRESS = testAddress();
  });
  afterAll(async () => {
    await plain?.close();
    await streamed?.close();
  });

  test.each([
    ['a handoff reply with two tool calls', DESK],
    ['a review loop with a judge', JUDGED],
  ])('%s: streamed and unstreamed runs end with the same RunResult and the same number of history events', async (_name, yaml) => {
    const workflowId = uniqueWorkflowId('same');
    const results: string[] = [];
    const events: number[] = [];
    for (const [h, stream] of [
      [plain, {}],
      [streamed, { chunkChars: 3, interleaveToolCalls: true }],
    ] as const) {
      h.stub.reset();
      h.stub.setStream(stream);
      script(h.stub);
      // the same workflow id for both runs, so the results may be compared whole
      const handle = await h.start(yaml, { workflowId, task: 'Help the customer.' });
      const result = await handle.result();
      results.push(comparable(result));
      const history = await h.client.workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory();
      events.push(history.events?.length ?? 0);
    }
    expect(plain.stub.requests.every((r) => !r.streamed && r.body.stream === undefined)).toBe(true);
    expect(streamed.stub.requests.length).toBe(plain.stub.requests.length);
    expect(streamed.stub.requests.every((r) => r.streamed && r.chunks > 5)).toBe(true);
    expect(JSON.parse(results[1]!).status).toBe('completed');
    expect(results[1]).toBe(results[0]);
    expect(events[1]).toBe(events[0]);
  });

  test('an endpoint that refuses stream: true is asked again without it once, and never streamed to again', async () => {
    const refusing = await startHarness();
    try {
      refusing.stub.setStream({ refuse: true });
      script(refusing.stub);
      const result = await refusing.run(JUDGED, { task: 'Help the customer.' });
      expect(result.status).toBe('completed');
      const seen = refusing.stub.requests.map((r) => `${r.key}:${r.body.stream === true ? 'streamed' : 'whole'}:${r.status}`);
      expect(seen[0]).toBe('writer:streamed:400');
      expect(seen.slice(1).every((s) => s.endsWith(':whole:200'))).toBe(true);
      // writer ×2, critic ×2, judge ×2, and the one refused request
      expect(seen).toHaveLength(7);
      expect(result.warnings).toContain(ACTIVITY_TEXTS.llm.noStreaming('agent', 'writer', refusing.stub.url));
    } finally {
      await refusing.close();
    }
  });

  test('a streamed call shows its partial text in the pending activity, and cancelling the run aborts its HTTP stream', async () => {
    streamed.stub.reset();
    streamed.stub.setStream({});
    streamed.stub.script('writer', [{ text: 'The opening words of a draft that never ends', stream: { chunkChars: 4, hangAfterChunks: 6 } }]);
    const handle = await streamed.start(JUDGED);
    const [writer] = await streamed.stub.waitForRequests(1, 'writer');
    const live = await pendingLiveText(handle, (l) => l.chars > 0);
    // the first chunk is the role; five chunks of four characters came before the stream hung
    expect(live).toEqual({ agent: 'writer', kind: 'agent', partialText: 'The opening words of', chars: 20 });
    const cancelledAt = Date.now();
    expect(await main(['cancel', handle.workflowId])).toBe(0);
    const result = await handle.result();
    await streamed.stub.waitFor(() => writer!.aborted, { timeoutMs: 5000, message: 'the stream was not aborted' });
    // within a heartbeat or two (the worker throttles them to 500 ms), with room for a loaded machine
    expect(writer!.abortedAt! - cancelledAt).toBeLessThan(3000);
    expect(writer!.chunks).toBe(6);
    expect(result).toMatchObject({ status: 'cancelled', reason: 'user_abort' });
  });
});
