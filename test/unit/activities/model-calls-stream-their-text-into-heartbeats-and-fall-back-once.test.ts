/**
 * The model-call activities over the HTTP stub: a streamed call heartbeats its partial text as a
 * LiveText, an endpoint that refuses `stream: true` is asked again without it once and never
 * streamed to again, a worker with streaming off never streams, and a stream without usage gets an
 * estimate and a warning instead of zero tokens, once: that endpoint's later calls go whole.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { createActivities } from '../../../src/activities';
import { rejectsStreaming } from '../../../src/activities/llm';
import { streamingOn } from '../../../src/activities/stream-policy';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import type { AgentCallInput, JudgeInput } from '../../../src/core/llm/contract';
import { LIVE_TEXT_LIMITS, readLiveText, type LiveText } from '../../../src/core/observe/live';
import { FAILURE_TYPES } from '../../../src/core/llm/contract';
import { activityEnv, runIn, testModel, testOffer } from '../../helpers/activity-env';
import { startStubLlm, type StubLlm } from '../../helpers/stub-llm';

const input = (over: Partial<AgentCallInput> = {}): AgentCallInput => ({
  workflowId: 'wf-1',
  agent: 'writer',
  model: testModel,
  messages: [{ role: 'user', content: 'Write.' }],
  offer: testOffer(),
  timeoutMs: 30_000,
  ...over,
});

let stub: StubLlm | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('heartbeat details of a streamed call', () => {
  it('carry the agent, the kind, the last 2048 characters written so far and their count, growing as the text arrives', async () => {
    stub = await startStubLlm({ stream: { chunkChars: 200, chunkDelayMs: 40 } });
    const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} of a long streamed draft, ünïcode 𝄞.`).join(' ');
    stub.script('writer', [{ text: long }]);
    const env = activityEnv();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const result = await runIn(env, acts.callAgent, input());
    expect(result.text).toBe(long);
    expect(stub.requests[0]!.streamed).toBe(true);
    const lives = beats.map((b) => readLiveText(b));
    // every beat is one LiveText, nothing else
    expect(lives.every((l) => l !== undefined)).toBe(true);
    const seen = lives as LiveText[];
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const live of seen) {
      expect(live).toEqual({ agent: 'writer', kind: 'agent', partialText: expect.any(String), chars: expect.any(Number) });
      expect(live.partialText.length).toBeLessThanOrEqual(LIVE_TEXT_LIMITS.tailChars);
      expect(long.slice(0, live.chars).endsWith(live.partialText)).toBe(true);
      expect(live.partialText.length).toBe(Math.min(live.chars, LIVE_TEXT_LIMITS.tailChars));
    }
    const counts = seen.map((l) => l.chars);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(new Set(counts.filter((c) => c > 0)).size).toBeGreaterThanOrEqual(2);
    expect(long.length).toBeGreaterThan(LIVE_TEXT_LIMITS.tailChars);
    expect(Math.max(...counts)).toBeGreaterThan(LIVE_TEXT_LIMITS.tailChars);
  });

  it('name the judge kind and the judged agent for a judge call', async () => {
    stub = await startStubLlm({ stream: { chunkChars: 6, chunkDelayMs: 40 } });
    stub.script('judge:writer', [{ text: '{"converged": true, "reason": "it is done and well written"}' }]);
    const env = activityEnv();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const judge: JudgeInput = { workflowId: 'wf-1', agent: 'writer', model: testModel, criteria: 'c', task: 't', result: 'r', timeoutMs: 30_000 };
    const verdict = await runIn(env, acts.judgeConvergence, judge);
    expect(verdict.converged).toBe(true);
    expect(beats.length).toBeGreaterThan(0);
    expect(readLiveText(beats.at(-1))).toMatchObject({ agent: 'writer', kind: 'judge' });
  });
});

describe('an endpoint that refuses stream: true', () => {
  it('gets the same request once more without streaming, with a warning, and later calls go unstreamed at once', async () => {
    stub = await startStubLlm({ stream: { refuse: true } });
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const first = await runIn(activityEnv(), acts.callAgent, input());
    expect(stub.requests.map((r) => [r.body.stream ?? false, r.status])).toEqual([
      [true, 400],
      [false, 200],
    ]);
    expect(stub.requests[1]!.body).not.toHaveProperty('stream_options');
    expect(first.text).toBe('writer reply 2');
    expect(first.warnings).toEqual([ACTIVITY_TEXTS.llm.noStreaming('agent', 'writer', stub.url)]);
    // remembered by base URL: the next call, of any activity, is sent without streaming at once
    const second = await runIn(activityEnv(), acts.callModel, { ...input(), turn: { round: 0 } });
    expect(stub.requests).toHaveLength(3);
    expect(stub.requests[2]!.body.stream).toBeUndefined();
    expect(second.warnings).toEqual([]);
  });

  it('is recognised by a 400 or 422 naming stream, stream_options or include_usage, and nothing else', () => {
    const failure = (status: number, message: string) =>
      ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message, details: [{ kind: 'agent', message, status }] });
    expect(rejectsStreaming(failure(400, 'stream is not supported'))).toBe(true);
    expect(rejectsStreaming(failure(422, "Unrecognized request argument supplied: stream_options"))).toBe(true);
    expect(rejectsStreaming(failure(400, 'include_usage: extra fields not permitted'))).toBe(true);
    expect(rejectsStreaming(failure(400, 'upstream model rejected the prompt'))).toBe(false);
    expect(rejectsStreaming(failure(500, 'stream is not supported'))).toBe(false);
    expect(rejectsStreaming(new Error('stream is not supported'))).toBe(false);
  });
});

describe('a worker with streaming off', () => {
  it('never streams with TROUPE_STREAM=off or stream: false, while another worker of the process does', async () => {
    stub = await startStubLlm();
    const off = createActivities({ baseUrl: stub.url, env: { TROUPE_STREAM: 'off' } });
    const optionOff = createActivities({ baseUrl: stub.url, env: {}, stream: false });
    const on = createActivities({ baseUrl: stub.url, env: {} });
    await runIn(activityEnv(), off.callAgent, input());
    await runIn(activityEnv(), optionOff.callAgent, input());
    await runIn(activityEnv(), on.callAgent, input());
    expect(stub.requests.map((r) => r.streamed)).toEqual([false, false, true]);
    expect(stub.requests[0]!.body.stream).toBeUndefined();
    expect(streamingOn({ env: { TROUPE_STREAM: ' OFF ' } })).toBe(false);
    expect(streamingOn({ env: { TROUPE_STREAM: 'on' } })).toBe(true);
    expect(streamingOn({ env: { TROUPE_STREAM: 'off' }, stream: true })).toBe(true);
  });
});

describe('a streamed reply that echoes a secret of the worker', () => {
  it('never carries it in a heartbeat: the partial text is redacted like the result', async () => {
    const key = 'sk-live-0123456789abcdefSECRET';
    stub = await startStubLlm({ stream: { chunkChars: 5, chunkDelayMs: 30 } });
    const reply = `My configuration says the key is ${key} and ${'then some more words '.repeat(8)}`;
    stub.script('writer', [{ text: reply }]);
    const env = activityEnv();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const acts = createActivities({ baseUrl: stub.url, apiKey: key, env: {} });
    const result = await runIn(env, acts.callAgent, input());
    expect(result.text).not.toContain(key);
    const texts = beats.map((b) => readLiveText(b)?.partialText ?? '');
    // the beats saw the key being written, in pieces and whole, and none of them holds any of it
    expect(texts.some((t) => t.includes('[redacted]'))).toBe(true);
    for (const t of texts) expect(t).not.toContain(key.slice(0, 8));
  });
});

describe('a stream without its usage chunk', () => {
  it('counts estimated tokens, not zero, warns, and sends that endpoint whole requests from then on', async () => {
    stub = await startStubLlm({ stream: { usage: false } });
    stub.script('writer', [{ text: 'a reply of some forty characters, or so.' }]);
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const first = await runIn(activityEnv(), acts.callAgent, input());
    expect(stub.requests[0]!.streamed).toBe(true);
    expect(first.usage.promptTokens).toBeGreaterThan(0);
    expect(first.usage.completionTokens).toBe(10);
    expect(first.usage.totalTokens).toBe(first.usage.promptTokens + first.usage.completionTokens);
    expect(first.warnings).toEqual([ACTIVITY_TEXTS.llm.usageEstimated('agent', 'writer', stub.url)]);
    stub.script('writer', [{ text: 'a reply of some forty characters, or so.', usage: { prompt_tokens: 7, completion_tokens: 3 } }]);
    const second = await runIn(activityEnv(), acts.callAgent, input());
    expect(stub.requests[1]!.streamed).toBe(false);
    expect(stub.requests[1]!.body).not.toHaveProperty('stream');
    expect(second.usage).toMatchObject({ promptTokens: 7, completionTokens: 3 });
    expect(second.warnings).toEqual([]);
  });
});

describe('a stream that stops in the middle', () => {
  it('is aborted at the deadline and reported as the timeout, with the partial text sent before', async () => {
    stub = await startStubLlm({ stream: { chunkChars: 5, hangAfterChunks: 3 } });
    stub.script('writer', [{ text: 'begun but never finished' }]);
    const env = activityEnv(1_400);
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const failure = await runIn(env, acts.callAgent, input()).then(
      () => undefined,
      (e: unknown) => e as ApplicationFailure,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure!.type).toBe(FAILURE_TYPES.retryable);
    expect(failure!.message).toMatch(/^agent writer: no reply within 1400 ms/);
    await stub.waitFor(() => stub!.requests[0]!.aborted, { timeoutMs: 2000, message: 'the stream was not aborted' });
    expect(readLiveText(beats.at(-1))).toEqual({ agent: 'writer', kind: 'agent', partialText: 'begun but ', chars: 10 });
  });

  it('is aborted when the activity is cancelled, which rethrows CancelledFailure', async () => {
    stub = await startStubLlm({ stream: { chunkChars: 5, hangAfterChunks: 3 } });
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const env = activityEnv();
    const running = env.run(acts.callAgent, input());
    await stub.waitFor(() => stub!.requests[0]?.chunks === 3, { message: 'the stream did not start' });
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    await stub.waitFor(() => stub!.requests[0]!.aborted, { timeoutMs: 2000, message: 'the stream was not aborted' });
  });
});
