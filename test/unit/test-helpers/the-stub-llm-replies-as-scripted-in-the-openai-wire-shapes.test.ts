/**
 * The server tests' HTTP stub, checked over real HTTP with the `openai` package, so a server test
 * that fails points at troupe and not at its stub: scripting per agent and kind, OpenAI wire shapes
 * (errors, request ids, Retry-After, tool calls, usage), overlap and abort detection.
 */
import OpenAI, { AuthenticationError, RateLimitError } from 'openai';
import { startStubLlm, STUB_DEFAULTS, type StubLlm } from '../../helpers/stub-llm';

let stub: StubLlm;
let client: OpenAI;

beforeAll(async () => {
  stub = await startStubLlm();
  client = new OpenAI({ baseURL: stub.url, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => stub.close());
afterEach(() => stub.reset());

function call(agent: string, kind = 'agent', extra: Record<string, unknown> = {}, signal?: AbortSignal) {
  return client.chat.completions
    .create(
      { model: 'm', messages: [{ role: 'user', content: `hi from ${agent}` }], ...extra },
      { headers: { 'x-troupe-agent': agent, 'x-troupe-kind': kind }, signal },
    )
    .withResponse();
}
const textOf = async (p: ReturnType<typeof call>) => (await p).data.choices[0]?.message.content;

test('steps are consumed in order per agent and the last one repeats', async () => {
  stub.script('writer', [{ text: 'one' }, { text: 'two' }]);
  expect([await textOf(call('writer')), await textOf(call('writer')), await textOf(call('writer'))]).toEqual([
    'one',
    'two',
    'two',
  ]);
  expect(stub.hits('writer')).toBe(3);
});

test('judge and compaction requests of an agent have their own scripts and counts', async () => {
  stub.script('critic', [{ text: 'agent reply' }]);
  stub.script('judge:critic', [{ text: '{"converged":true,"reason":"ok"}' }]);
  stub.script('compaction:*', [{ text: 'sum' }]);
  expect(await textOf(call('critic', 'judge'))).toBe('{"converged":true,"reason":"ok"}');
  expect(await textOf(call('critic'))).toBe('agent reply');
  expect(await textOf(call('writer', 'compaction'))).toBe('sum');
  expect([stub.hits('critic'), stub.hits('judge:critic'), stub.hits('compaction:writer'), stub.hits()]).toEqual([1, 1, 1, 3]);
});

test('unscripted requests go to responders, then to the default reply', async () => {
  stub.respond((req) => (req.agent === 'dyn' ? { text: `echo: ${req.messages[0]?.content}` } : undefined));
  expect(await textOf(call('dyn'))).toBe('echo: hi from dyn');
  expect(await textOf(call('other'))).toBe(STUB_DEFAULTS.agentText('other', 1));
  expect(JSON.parse((await textOf(call('other', 'judge'))) ?? '')).toEqual(STUB_DEFAULTS.judgeVerdict);
});

test('every response carries x-request-id req_<n>, and default usage is computed', async () => {
  const { data, response } = await call('a');
  expect(response.headers.get('x-request-id')).toBe(stub.requests[0]?.id);
  expect(stub.requests[0]?.id).toMatch(/^req_\d+$/);
  expect(data.usage?.total_tokens).toBe((data.usage?.prompt_tokens ?? 0) + (data.usage?.completion_tokens ?? 0));
  expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
});

test('errors use the OpenAI error shape with the request id; Retry-After is sent on 429', async () => {
  stub.script('a', [{ status: 401, errorMessage: 'bad key' }, { status: 429, retryAfter: 2 }]);
  const e401 = await call('a').catch((e: unknown) => e);
  expect(e401).toBeInstanceOf(AuthenticationError);
  expect((e401 as AuthenticationError).requestID).toBe(stub.requests[0]?.id);
  expect((e401 as AuthenticationError).error).toMatchObject({ message: 'bad key', type: 'authentication_error' });
  const e429 = (await call('a').catch((e: unknown) => e)) as RateLimitError;
  expect(e429).toBeInstanceOf(RateLimitError);
  expect(e429.headers?.get('retry-after')).toBe('2');
  expect(stub.requests.map((r) => r.status)).toEqual([401, 429]);
});

test('tool calls come back in OpenAI format with finish_reason tool_calls; tools and response_format are recorded', async () => {
  stub.script('a', [{ toolCalls: [{ name: 'goal', arguments: { action: 'update_status', status: 'completed' } }] }]);
  const tools = [{ type: 'function' as const, function: { name: 'goal', parameters: { type: 'object', properties: {} } } }];
  const responseFormat = { type: 'json_object' as const };
  const { data } = await call('a', 'agent', { tools, response_format: responseFormat });
  const choice = data.choices[0];
  expect(choice?.finish_reason).toBe('tool_calls');
  expect(choice?.message.tool_calls).toEqual([
    { id: expect.any(String), type: 'function', function: { name: 'goal', arguments: '{"action":"update_status","status":"completed"}' } },
  ]);
  expect(stub.requests[0]?.tools).toEqual(tools);
  expect(stub.requests[0]?.responseFormat).toEqual(responseFormat);
});

test('maxConcurrent sees 4 overlapping delayed requests, and 1 for sequential ones', async () => {
  stub.script('*', [{ delayMs: 300 }]);
  await Promise.all(['s1', 's2', 's3', 's4'].map((a) => call(a)));
  expect(stub.maxConcurrent()).toBe(4);
  stub.reset();
  await call('q1');
  await call('q2');
  expect(stub.maxConcurrent()).toBe(1);
  expect(stub.inFlight()).toBe(0);
});

test('a client abort of a hanging request is recorded as aborted, with its time', async () => {
  stub.script('slow', [{ hang: true }]);
  const abort = new AbortController();
  const pending = call('slow', 'agent', {}, abort.signal).catch((e: unknown) => e);
  await stub.waitForRequests(1, 'slow');
  expect(stub.inFlight('slow')).toBe(1);
  abort.abort();
  await pending;
  await stub.waitFor(() => stub.requests[0]?.aborted === true, { timeoutMs: 2000 });
  const [req] = stub.requestsFor('slow');
  expect(req.abortedAt).toBeGreaterThanOrEqual(req.startedAt);
  expect(req.status).toBeUndefined();
});

test('a completed request is not marked aborted', async () => {
  await call('fine');
  await stub.waitFor(() => stub.requests[0]?.endedAt !== undefined);
  expect(stub.requests[0]?.aborted).toBe(false);
});
