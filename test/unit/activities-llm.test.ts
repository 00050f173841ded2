import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { createActivities } from '../../src/activities';
import { LLM_DEFAULTS, parseRetryAfterMs, requestTimeoutMs } from '../../src/activities/llm';
import type { AgentCallInput, LlmFailureDetails } from '../../src/core/llm/contract';
import { FAILURE_TYPES } from '../../src/core/llm/contract';
import { activityEnv, runIn, testModel } from '../helpers/activity-env';
import { completion, errorBody, startMiniLlm, type MiniLlm } from '../helpers/mini-llm';

const input = (over: Partial<AgentCallInput> = {}): AgentCallInput => ({
  workflowId: 'wf-1',
  agent: 'writer',
  model: testModel,
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  timeoutMs: 30_000,
  ...over,
});

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('LLM client and request plumbing', () => {
  let stub: MiniLlm | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('sends the model, the troupe headers and the bearer key from OPENAI_API_KEY to the injected base URL', async () => {
    stub = await startMiniLlm(() => ({ json: completion({ content: 'hello' }) }));
    const acts = createActivities({ baseUrl: stub.url, env: { OPENAI_API_KEY: 'sk-test' } });
    await runIn(activityEnv(), acts.callAgent, input());
    const seen = stub.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.headers['authorization']).toBe('Bearer sk-test');
    expect(seen.headers['x-troupe-agent']).toBe('writer');
    expect(seen.headers['x-troupe-kind']).toBe('agent');
    expect(seen.body.model).toBe('test-model');
  });

  it('prefers the model baseUrl and its apiKeyEnv, and never falls back to OPENAI_API_KEY for it', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ baseUrl: 'http://127.0.0.1:1/v1', env: { OPENAI_API_KEY: 'sk-openai', MY_KEY: 'sk-mine' } });
    await runIn(activityEnv(), acts.callAgent, input({ model: { name: 'm', baseUrl: stub.url, apiKeyEnv: 'MY_KEY' } }));
    expect(stub.requests[0]!.headers['authorization']).toBe('Bearer sk-mine');
    await runIn(activityEnv(), acts.callAgent, input({ model: { name: 'm', baseUrl: stub.url, apiKeyEnv: 'MISSING' } }));
    expect(stub.requests[1]!.headers['authorization']).toBe(`Bearer ${LLM_DEFAULTS.noApiKey}`);
  });

  it('uses OPENAI_BASE_URL from env and a placeholder key when none is set', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ env: { OPENAI_BASE_URL: stub.url } });
    await runIn(activityEnv(), acts.callAgent, input());
    expect(stub.requests[0]!.headers['authorization']).toBe('Bearer troupe-no-key');
  });

  it('turns 401 into a non-retryable failure with status, message and request id, after one request', async () => {
    stub = await startMiniLlm(() => ({ status: 401, json: errorBody('Incorrect API key provided') }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(FAILURE_TYPES.fatal);
    expect(f.message).toBe('agent writer: HTTP 401 Incorrect API key provided (request id req_1)');
    expect(f.details?.[0]).toEqual<LlmFailureDetails>({
      kind: 'agent',
      status: 401,
      requestId: 'req_1',
      message: 'Incorrect API key provided',
    });
    expect(stub.requests).toHaveLength(1);
  });

  it.each([400, 403, 404, 422])('turns HTTP %i into a non-retryable failure', async (status) => {
    stub = await startMiniLlm(() => ({ status, json: errorBody(`problem ${status}`) }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(FAILURE_TYPES.fatal);
    expect(f.message).toBe(`agent writer: HTTP ${status} problem ${status} (request id req_1)`);
    expect((f.details?.[0] as LlmFailureDetails).status).toBe(status);
    expect(stub.requests).toHaveLength(1);
  });

  it('turns 429 with Retry-After: 7 into a retryable failure that asks for a 7 s delay', async () => {
    stub = await startMiniLlm(() => ({ status: 429, headers: { 'retry-after': '7' }, json: errorBody('slow down') }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.nextRetryDelay).toBe(7000);
    expect((f.details?.[0] as LlmFailureDetails).status).toBe(429);
    expect(stub.requests).toHaveLength(1);
  });

  it('turns 500 into a retryable failure with status and request id, and does not retry inside the client', async () => {
    stub = await startMiniLlm(() => ({ status: 500, json: errorBody('boom', 'server_error') }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.nextRetryDelay).toBeUndefined();
    expect(f.details?.[0]).toMatchObject({ status: 500, requestId: 'req_1', kind: 'agent' });
    expect(stub.requests).toHaveLength(1);
  });

  it('turns a connection refusal into a retryable failure', async () => {
    const acts = createActivities({ baseUrl: 'http://127.0.0.1:1/v1', env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.message).toMatch(/^agent writer: connection error/);
  });

  it('times a request out at the remaining start-to-close time minus 1 s, as a retryable failure', async () => {
    stub = await startMiniLlm(() => ({ hang: true }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const f = await failureOf(runIn(activityEnv(1_400), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.message).toMatch(/^agent writer: request timed out after (3\d\d|400) ms$/);
    await stub.waitForAbort(0);
  });

  it('aborts the HTTP request and rethrows CancelledFailure when the activity is cancelled', async () => {
    stub = await startMiniLlm(() => ({ hang: true }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const env = activityEnv();
    const running = env.run(acts.callAgent, input());
    await stub.waitForRequest(0);
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    await stub.waitForAbort(0);
    expect(stub.aborted).toEqual([0]);
  });

  it('heartbeats while a request is in flight', async () => {
    stub = await startMiniLlm(() => ({ delayMs: 1000, json: completion({}) }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const env = activityEnv();
    let beats = 0;
    env.on('heartbeat', () => (beats += 1));
    await env.run(acts.callAgent, input());
    expect(beats).toBeGreaterThanOrEqual(3);
  });
});

describe('retry-after and request timeout arithmetic', () => {
  const headers = (h: Record<string, string>) => new Headers(h);

  it('reads Retry-After as seconds, as an HTTP date, and prefers retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfterMs(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:12 GMT' }), now)).toBe(12_000);
    expect(parseRetryAfterMs(headers({ 'retry-after': '7', 'retry-after-ms': '1500' }), now)).toBe(1500);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({}), now)).toBeUndefined();
  });

  it('leaves 1 s before the deadline and never goes below the floor', () => {
    expect(requestTimeoutMs(31_000, 1_000)).toBe(29_000);
    expect(requestTimeoutMs(1_500, 1_000)).toBe(LLM_DEFAULTS.minRequestTimeoutMs);
  });
});
