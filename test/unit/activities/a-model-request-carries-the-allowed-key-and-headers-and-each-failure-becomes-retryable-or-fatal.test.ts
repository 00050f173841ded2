import * as net from 'node:net';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { APIConnectionError, APIConnectionTimeoutError } from 'openai';
import { createActivities } from '../../../src/activities';
import { ENDPOINT_TEXTS } from '../../../src/activities/endpoints';
import {
  classifyLlmError,
  isLocalRequestError,
  LLM_DEFAULTS,
  parseRetryAfterMs,
  requestTimeoutMs,
} from '../../../src/activities/llm';
import type { AgentCallInput, LlmFailureDetails } from '../../../src/core/llm/contract';
import { decodeHeaderValue, encodeHeaderValue, FAILURE_TYPES, TROUPE_HEADERS } from '../../../src/core/llm/contract';
import { activityEnv, runIn, testModel, testOffer } from '../../helpers/activity-env';
import { completion, errorBody, startMiniLlm, type MiniLlm } from '../../helpers/mini-llm';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';

const input = (over: Partial<AgentCallInput> = {}): AgentCallInput => ({
  workflowId: 'wf-1',
  agent: 'writer',
  model: testModel,
  messages: [{ role: 'user', content: 'hi' }],
  offer: testOffer(),
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

  it('prefers an allowed model baseUrl and apiKeyEnv, and never falls back to OPENAI_API_KEY for it', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({
      baseUrl: 'http://127.0.0.1:1/v1',
      env: {
        OPENAI_API_KEY: 'sk-openai',
        MY_KEY: 'sk-mine',
        TROUPE_ALLOWED_BASE_URLS: stub.url,
        TROUPE_ALLOWED_KEY_ENVS: 'MY_KEY, MISSING',
      },
    });
    await runIn(activityEnv(), acts.callAgent, input({ model: { name: 'm', baseUrl: stub.url, apiKeyEnv: 'MY_KEY' } }));
    expect(stub.requests[0]!.headers['authorization']).toBe('Bearer sk-mine');
    await runIn(activityEnv(), acts.callAgent, input({ model: { name: 'm', baseUrl: stub.url, apiKeyEnv: 'MISSING' } }));
    expect(stub.requests[1]!.headers['authorization']).toBe(`Bearer ${LLM_DEFAULTS.noApiKey}`);
  });

  it('sends agent names and workflow ids outside ASCII percent-encoded, and they decode to the originals', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    await runIn(activityEnv(), acts.callAgent, input({ agent: '研究者', workflowId: 'lauf-über-𝄞' }));
    const headers = stub.requests[0]!.headers;
    expect(headers[TROUPE_HEADERS.agent]).toBe(encodeHeaderValue('研究者'));
    expect(decodeHeaderValue(String(headers[TROUPE_HEADERS.agent]))).toBe('研究者');
    expect(decodeHeaderValue(String(headers[TROUPE_HEADERS.workflowId]))).toBe('lauf-über-𝄞');
    expect(headers[TROUPE_HEADERS.kind]).toBe('agent');
  });

  it('refuses a model base URL the worker does not allow, before any request, as a fatal failure', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ baseUrl: 'https://api.openai.com/v1', env: { SECRET: 'sk-secret-value' } });
    const f = await failureOf(
      runIn(activityEnv(), acts.callAgent, input({ model: { name: 'm', baseUrl: stub.url, apiKeyEnv: 'SECRET' } })),
    );
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(FAILURE_TYPES.fatal);
    const detail =
      ENDPOINT_TEXTS.baseUrlNotAllowed(stub.url, ['https://api.openai.com/v1']) +
      '; ' +
      ENDPOINT_TEXTS.keyEnvNotAllowed('SECRET', ['OPENAI_API_KEY']);
    expect(f.message).toBe(ACTIVITY_TEXTS.llm.endpointRefused('agent', 'writer', detail));
    expect(f.details?.[0]).toEqual<LlmFailureDetails>({ kind: 'agent', message: detail });
    expect(f.message).not.toContain('sk-secret-value');
    expect(stub.requests).toHaveLength(0);
  });

  it('honours any model endpoint when the worker trusts role endpoints (troupe dev)', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ env: { MY_KEY: 'sk-mine' }, trustRoleEndpoints: true });
    await runIn(activityEnv(), acts.callAgent, input({ model: { name: 'm', baseUrl: stub.url, apiKeyEnv: 'MY_KEY' } }));
    expect(stub.requests[0]!.headers['authorization']).toBe('Bearer sk-mine');
  });

  it('refuses to start with an allowlist entry that is not a URL', () => {
    expect(() => createActivities({ env: { TROUPE_ALLOWED_BASE_URLS: 'https://ok.example/v1, localhost:8080' } })).toThrow(
      ENDPOINT_TEXTS.invalidListEntry('localhost:8080'),
    );
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
    const acts = createActivities({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1`, env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.message).toMatch(/^agent writer: connection error: Connection error\. \(fetch failed\)$/);
  });

  it('turns a reply cut off mid-body (undici: TypeError "terminated") into a retryable failure', async () => {
    const server = net.createServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"choices":');
        setTimeout(() => socket.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const acts = createActivities({ baseUrl: `http://127.0.0.1:${port}/v1`, env: {} });
      const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
      expect(f.nonRetryable).toBe(false);
      expect(f.type).toBe(FAILURE_TYPES.retryable);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('turns a key the HTTP layer cannot carry into a fatal local failure, sending nothing', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ baseUrl: stub.url, apiKey: 'sk-ключ', env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(FAILURE_TYPES.fatal);
    const error = 'TypeError: Cannot convert argument to a ByteString';
    expect(f.message.startsWith(ACTIVITY_TEXTS.llm.local('agent', 'writer', error))).toBe(true);
    expect(stub.requests).toHaveLength(0);
  });

  it('turns a base URL fetch refuses to use (credentials in it) into a fatal local failure', async () => {
    stub = await startMiniLlm(() => ({ json: completion({}) }));
    const acts = createActivities({ baseUrl: stub.url.replace('http://', 'http://user:pw@'), env: {} });
    const f = await failureOf(runIn(activityEnv(), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(FAILURE_TYPES.fatal);
    const message = (f.details?.[0] as LlmFailureDetails).message;
    const error = 'TypeError: Request cannot be constructed from a URL that includes credentials';
    expect(message.startsWith(ACTIVITY_TEXTS.llm.localDetail(error))).toBe(true);
    expect(stub.requests).toHaveLength(0);
  });

  it('times a request out at the remaining start-to-close time minus 1 s, as a retryable failure', async () => {
    stub = await startMiniLlm(() => ({ hang: true }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const f = await failureOf(runIn(activityEnv(1_400), acts.callAgent, input()));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.message).toMatch(/^agent writer: no reply within 1400 ms \(the request gets the call's timeout minus 1 s: (3\d\d|400) ms\); a slow model needs more: raise agents\.writer\.timeout_ms/);
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

/** A port nothing listens on (a real ECONNREFUSED, unlike port 1, which fetch refuses as a "bad port"). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('local errors versus network failures', () => {
  const scope = { kind: 'agent' as const, agent: 'writer' };
  const withCause = (err: Error, cause: unknown) => Object.assign(err, { cause });
  const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });
  const byteString = new TypeError(
    'Cannot convert argument to a ByteString because the character at index 0 has a value of 30740 which is greater than 255.',
  );
  const credentials = new TypeError('Request cannot be constructed from a URL that includes credentials');
  const fetchFailed = (cause: unknown) => new APIConnectionError({ cause: withCause(new TypeError('fetch failed'), cause) });

  it.each([
    ['a raw TypeError thrown while the headers are built', byteString, byteString],
    ['a RangeError', new RangeError('Invalid array length'), undefined],
    ['a TypeError from JSON serialization', new TypeError('Do not know how to serialize a BigInt'), undefined],
    ['an APIConnectionError wrapping a TypeError fetch threw', new APIConnectionError({ cause: credentials }), credentials],
  ])('%s is fatal and not retried', (_what, err, inner) => {
    const f = classifyLlmError(err, scope, 1000);
    const error = `${(inner ?? err).name}: ${(inner ?? err).message}`;
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(FAILURE_TYPES.fatal);
    expect(f.message).toBe(ACTIVITY_TEXTS.llm.local('agent', 'writer', error));
    expect((f.details?.[0] as LlmFailureDetails).message).toBe(ACTIVITY_TEXTS.llm.localDetail(error));
  });

  it.each([
    ['fetch failed with ECONNREFUSED', fetchFailed(systemError('ECONNREFUSED'))],
    ['fetch failed with ECONNRESET', fetchFailed(systemError('ECONNRESET'))],
    ['fetch failed with a bare cause', fetchFailed(new Error('bad port'))],
    ['a body cut off (terminated, UND_ERR_SOCKET)', withCause(new TypeError('terminated'), systemError('UND_ERR_SOCKET'))],
    ['a TypeError caused by a socket error', withCause(new TypeError('x'), withCause(new Error('y'), systemError('ETIMEDOUT')))],
    ['an APIConnectionError without a cause', new APIConnectionError({})],
    ['a plain Error', new Error('something odd')],
  ])('%s stays retryable', (_what, err) => {
    const f = classifyLlmError(err, scope, 1000);
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
  });

  it('keeps a connection timeout a retryable timeout', () => {
    const f = classifyLlmError(new APIConnectionTimeoutError(), scope, 1234);
    expect(f).toMatchObject({
      type: FAILURE_TYPES.retryable,
      nonRetryable: false,
      message: ACTIVITY_TEXTS.llm.timeout('agent', 'writer', 1234, 2234),
    });
  });

  it('recognises errors by name, so a TypeError from another realm counts', () => {
    const foreign = { name: 'TypeError', message: 'Headers.append: "a\nb" is an invalid header value.' };
    expect(isLocalRequestError(foreign)).toBe(true);
    expect(isLocalRequestError(new Error('not a type error'))).toBe(false);
    expect(isLocalRequestError('TypeError')).toBe(false);
  });
});

describe('header values', () => {
  const values = ['writer', 'critic-2', '研究者', 'lauf über 𝄞', '50%', 'a,b;c=d', ''];
  it.each(values)('%j survives encoding and is ASCII on the wire', (v) => {
    const encoded = encodeHeaderValue(v);
    expect(encoded).toMatch(/^[\x21-\x7e]*$/);
    expect(decodeHeaderValue(encoded)).toBe(v);
  });

  it('leaves plain ASCII names as they are and turns a lone surrogate into U+FFFD', () => {
    expect(encodeHeaderValue('writer')).toBe('writer');
    expect(decodeHeaderValue(encodeHeaderValue('a\uD800b'))).toBe('a\uFFFDb');
  });

  it('returns a value that is not valid percent-encoding as it is', () => {
    expect(decodeHeaderValue('100%')).toBe('100%');
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
