/**
 * Replies without end (docs/semantics.md, "Bounds on hostile input"): an endpoint streaming 64 KiB
 * content chunks without end, one server-sent event of 600 MB without a newline (written lazily by
 * the stub), and a whole JSON body without end each fail the run's call at its cap — `failed /
 * fatal_error` after one request, not retried, the message naming the endpoint, the cap and the
 * setting that raises it — long before the call's 120 s timeout, and without the worker holding the
 * flood: the stub wrote a small part of the 600 MB when the worker hung up. A cap the role sets is
 * the one applied. The same worker then runs a run to completion.
 */
import { ACTIVITY_TEXTS } from '../../src/activities/texts';
import { shownUrl } from '../../src/activities/endpoints';
import type { RunResult } from '../../src/core/ending/result';
import { startHarness, type Harness } from '../helpers/runs';
import type { StubEndless } from '../helpers/stub-llm';

const MIB = 1024 * 1024;

/** One writer with the timeout the examples recommend for slow local models. */
const role = (modelExtra = '') => `
name: endless
model: { name: stub-model, timeout_ms: 120000${modelExtra} }
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

describe('a reply without end', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  /** Runs `yaml` with the writer's one reply endless as `endless`; the result and the writer's one request. */
  async function runEndless(endless: StubEndless, yaml = role()) {
    h.stub.reset();
    h.stub.script('writer', [{ endless }]);
    const result = await h.run(yaml);
    const requests = h.stub.requestsFor('writer');
    // failed at once: one request, never retried
    expect(requests).toHaveLength(1);
    return { result, request: requests[0] };
  }

  /** The run failed on the writer's call with `message`, as a fatal error. */
  function expectFailedWith(result: RunResult, message: string): void {
    expect(result).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(result.diagnostics).toMatchObject({ kind: 'agent', agent: 'writer' });
    expect(result.reasonText).toContain(message);
  }

  test('a stream of 64 KiB content chunks without end fails at the 16 MiB reply cap', async () => {
    const { result, request } = await runEndless({ shape: 'stream' });
    expectFailedWith(result, ACTIVITY_TEXTS.llm.replyTooLargeDetail('agent', 'writer', shownUrl(h.stub.url), '16 MiB', '64 MiB'));
    expect(result.reasonText).toContain('agents.writer.model.max_reply_bytes (or model.max_reply_bytes)');
    expect(request.streamed).toBe(true);
    expect(request.aborted).toBe(true);
  });

  test('the cap a role sets on its model is the one applied', async () => {
    const { result, request } = await runEndless({ shape: 'stream' }, role(', max_reply_bytes: 1048576'));
    expectFailedWith(result, ACTIVITY_TEXTS.llm.replyTooLargeDetail('agent', 'writer', shownUrl(h.stub.url), '1 MiB', '64 MiB'));
    expect(request.bytesWritten).toBeLessThan(16 * MIB);
  });

  test('one 600 MB event without a newline fails at the 4 MiB event cap, without being buffered', async () => {
    const { result, request } = await runEndless({ shape: 'event', totalBytes: 600 * MIB });
    expectFailedWith(result, ACTIVITY_TEXTS.llm.eventTooLargeDetail('agent', 'writer', shownUrl(h.stub.url), '4 MiB', '64 MiB'));
    expect(result.reasonText).toContain('agents.writer.model.max_event_bytes (or model.max_event_bytes)');
    // what the stub wrote: the cap and what the sockets held when the worker hung up, not the 600 MB
    expect(request.bytesWritten).toBeLessThan(64 * MIB);
    expect(request.aborted).toBe(true);
  });

  test('a whole JSON body without end fails at the reply cap too', async () => {
    const { result, request } = await runEndless({ shape: 'whole' });
    expectFailedWith(result, ACTIVITY_TEXTS.llm.replyTooLargeDetail('agent', 'writer', shownUrl(h.stub.url), '16 MiB', '64 MiB'));
    expect(request.streamed).toBe(false);
    expect(request.bytesWritten).toBeLessThan(64 * MIB);
  });

  test('the same worker then runs a run to completion', async () => {
    h.stub.reset();
    h.stub.script('writer', [{ text: 'a short essay' }]);
    expect(await h.run(role())).toMatchObject({ status: 'completed', finalText: 'a short essay' });
  });
});
