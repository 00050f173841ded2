/**
 * The LLM fault matrix (docs/semantics.md, "Agent calls"): each fault the HTTP stub can inject,
 * the attempts it costs (asserted exactly, from the requests that reached the wire) and how the run
 * ends. Transient faults are retried by Temporal (3 attempts, 1 s then 2 s apart, or after
 * `Retry-After`); faults that cannot heal fail at once.
 */
import { startHarness, type Harness } from '../helpers/runs';
import type { StubStep } from '../helpers/stub-llm';

const ONE = `
name: solo
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

/** The writer's activity has 2 s, so each request gets 1 s (the activity's time minus 1 s). */
const SHORT = ONE.replace('writer: { instructions: "Write." }', 'writer: { instructions: "Write.", timeout_ms: 2000 }');

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-x',
  object: 'chat.completion',
  created: 1,
  model: 'stub-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'never read' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const FAULTS: Record<string, StubStep> = {
  'connection reset mid-body': { resetMidBody: 0.5 },
  'truncated JSON': { body: COMPLETION.slice(0, 60) },
  'a 200 whose body is not JSON': { body: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' },
  'empty choices': { body: { id: 'chatcmpl-x', object: 'chat.completion', choices: [] } },
  'a 200 carrying a retryable error object': { body: { error: { message: 'upstream overloaded', type: 'server_error', code: 503 } } },
};

describe('LLM fault matrix', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test.each(Object.entries(FAULTS))('%s once: retried, 2 attempts, the run completes', async (_, fault) => {
    h.stub.script('writer', [fault, { text: 'finally' }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'finally' });
    expect(h.stub.hits('writer')).toBe(2);
  });

  test('connection reset mid-body every time: 3 attempts, failed/activity_failed naming the connection error', async () => {
    h.stub.script('writer', [FAULTS['connection reset mid-body']]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed', diagnostics: { agent: 'writer' } });
    expect(h.stub.hits('writer')).toBe(3);
    expect(r.diagnostics?.message).toBe('the response body was cut off: terminated (other side closed)');
  });

  test('truncated JSON every time: 3 attempts, failed/activity_failed saying the body is not JSON, with status and request id', async () => {
    h.stub.script('writer', [FAULTS['truncated JSON']]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed' });
    expect(h.stub.hits('writer')).toBe(3);
    expect(r.diagnostics).toMatchObject({ agent: 'writer', status: 200, requestId: h.stub.requestsFor('writer')[2].id });
    expect(r.diagnostics?.message).toBe(`the endpoint answered HTTP 200 with a body that is not valid JSON (application/json): ${COMPLETION.slice(0, 60)}`);
  });

  test('a 200 whose body is not JSON every time: 3 attempts, failed/activity_failed naming the content type', async () => {
    h.stub.script('writer', [FAULTS['a 200 whose body is not JSON']]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed', diagnostics: { agent: 'writer', status: 200 } });
    expect(h.stub.hits('writer')).toBe(3);
    expect(r.diagnostics?.message).toBe('the endpoint answered HTTP 200 with a body that is not valid JSON (text/html): <html><body>502 Bad Gateway</body></html>');
  });

  test('empty choices every time: 3 attempts, failed/activity_failed saying no completion choice came back', async () => {
    h.stub.script('writer', [FAULTS['empty choices']]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed', diagnostics: { agent: 'writer', status: 200 } });
    expect(h.stub.hits('writer')).toBe(3);
    expect(r.diagnostics?.message).toBe('no completion choice in the response');
  });

  test('a 200 carrying an error object every time: 3 attempts, the provider message and code in the diagnostics', async () => {
    h.stub.script('writer', [FAULTS['a 200 carrying a retryable error object']]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed', diagnostics: { agent: 'writer', status: 503, message: 'upstream overloaded' } });
    expect(h.stub.hits('writer')).toBe(3);
  });

  test('a 200 carrying an error object with a fatal code (401): 1 attempt, failed/fatal_error', async () => {
    h.stub.script('writer', [{ body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 401 } } }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', diagnostics: { agent: 'writer', status: 401, message: 'Incorrect API key provided' } });
    expect(h.stub.hits('writer')).toBe(1);
  });

  test('headers slower than the activity timeout: each attempt is cut at 1 s, 3 attempts, failed/activity_failed', async () => {
    h.stub.script('writer', [{ delayMs: 10_000 }]);
    const r = await h.run(SHORT);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed', diagnostics: { agent: 'writer' } });
    // the activity's 2 s less the 1 s margin, less the moments the attempt took to start
    const ms = Number(/^agent writer: no reply within 2000 ms \(the request gets the call's timeout minus 1 s: (\d+) ms\); a slow model needs more: raise agents\.writer\.timeout_ms \(or model\.timeout_ms\)$/.exec(r.diagnostics?.message ?? '')?.[1]);
    expect(ms).toBeGreaterThan(500);
    expect(ms).toBeLessThanOrEqual(1000);
    const attempts = h.stub.requestsFor('writer');
    expect(attempts).toHaveLength(3);
    for (const a of attempts) {
      expect(a.aborted).toBe(true);
      expect(a.abortedAt! - a.startedAt).toBeLessThan(5000);
    }
  });

  test('429 with Retry-After in seconds: the retry waits at least that long, 2 attempts, completed', async () => {
    h.stub.script('writer', [{ status: 429, retryAfter: 3, errorMessage: 'slow down' }, { text: 'after the wait' }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'completed', finalText: 'after the wait' });
    const [first, second] = h.stub.requestsFor('writer');
    expect(h.stub.hits('writer')).toBe(2);
    expect(second.startedAt - first.respondedAt!).toBeGreaterThanOrEqual(3000);
  });

  test('429 with Retry-After as an HTTP date: the retry waits until that date, 2 attempts, completed', async () => {
    let until = 0;
    h.stub.script('writer', [
      () => {
        const date = new Date(Date.now() + 4000).toUTCString();
        until = Date.parse(date);
        return { status: 429, retryAfter: date, errorMessage: 'slow down' };
      },
      { text: 'after the date' },
    ]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'completed', finalText: 'after the date' });
    expect(h.stub.hits('writer')).toBe(2);
    const second = h.stub.requestsFor('writer')[1];
    expect(until - h.stub.requestsFor('writer')[0].respondedAt!).toBeGreaterThan(2000);
    expect(second.startedAt).toBeGreaterThanOrEqual(until);
  });

  test('a storm of 503s longer than the retries: exactly 3 attempts, failed/activity_failed with status and request id', async () => {
    h.stub.script('writer', [{ status: 503, errorMessage: 'overloaded' }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed' });
    expect(h.stub.hits('writer')).toBe(3);
    expect(r.diagnostics).toMatchObject({ status: 503, agent: 'writer', message: 'overloaded', requestId: h.stub.requestsFor('writer')[2].id });
    expect(r.reasonText).toBe(`activity_failed: agent writer failed after 3 attempts: overloaded (request id ${h.stub.requestsFor('writer')[2].id})`);
  });
});
