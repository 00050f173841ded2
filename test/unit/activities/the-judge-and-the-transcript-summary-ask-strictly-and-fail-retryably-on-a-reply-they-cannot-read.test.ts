import { ApplicationFailure } from '@temporalio/activity';
import { createActivities } from '../../../src/activities';
import { VERDICT_RESPONSE_FORMAT, parseVerdict } from '../../../src/activities/judge';
import { firstBalancedJson } from '../../../src/core/text/json';
import type { CompactionInput, JudgeInput } from '../../../src/core/llm/contract';
import { FAILURE_TYPES } from '../../../src/core/llm/contract';
import { activityEnv, runIn, testModel } from '../../helpers/activity-env';
import { completion, errorBody, startMiniLlm, type MiniLlm, type Reply, type SeenRequest } from '../../helpers/mini-llm';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';

const judgeInput: JudgeInput = {
  workflowId: 'wf-1',
  agent: 'critic',
  model: testModel,
  criteria: 'the essay has a thesis',
  task: 'write an essay',
  result: 'Thesis: cats rule.',
  timeoutMs: 30_000,
};

describe('judgeConvergence', () => {
  let stub: MiniLlm | undefined;
  const start = async (script: (req: SeenRequest, i: number) => Reply) => {
    stub = await startMiniLlm(script);
    return createActivities({ baseUrl: stub.url, env: {} });
  };
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('asks at temperature 0 with the strict convergence_verdict schema and the criteria, task and result', async () => {
    const acts = await start(() => ({ json: completion({ content: '{"converged":true,"reason":"has thesis"}' }) }));
    const verdict = await runIn(activityEnv(), acts.judgeConvergence, judgeInput);
    expect(verdict).toEqual({
      converged: true,
      reason: 'has thesis',
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      requestId: 'req_1',
    });
    const { body, headers } = stub!.requests[0]!;
    expect(headers['x-troupe-kind']).toBe('judge');
    expect(headers['x-troupe-agent']).toBe('critic');
    expect(body.temperature).toBe(0);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'convergence_verdict',
        strict: true,
        schema: {
          type: 'object',
          properties: { converged: { type: 'boolean' }, reason: { type: 'string' } },
          required: ['converged', 'reason'],
          additionalProperties: false,
        },
      },
    });
    expect(body.response_format).toEqual(VERDICT_RESPONSE_FORMAT);
    expect(body.messages).toEqual([
      { role: 'system', content: ACTIVITY_TEXTS.judge.system },
      { role: 'user', content: ACTIVITY_TEXTS.judge.user('the essay has a thesis', 'write an essay', 'critic', 'Thesis: cats rule.') },
    ]);
    expect(body.messages[1].content).toContain('the essay has a thesis');
    expect(body.messages[1].content).toContain('Thesis: cats rule.');
  });

  it('retries once without response_format after a 400 about it, and reads the first JSON object of the reply', async () => {
    const acts = await start((_req, i) =>
      i === 0
        ? { status: 400, json: errorBody("Invalid parameter: 'response_format' of type 'json_schema' is not supported") }
        : { json: completion({ content: 'Verdict: {"converged": false, "reason": "no {thesis}"} done' }) },
    );
    const verdict = await runIn(activityEnv(), acts.judgeConvergence, judgeInput);
    expect(verdict).toMatchObject({ converged: false, reason: 'no {thesis}', requestId: 'req_2' });
    expect(stub!.requests).toHaveLength(2);
    expect(stub!.requests[0]!.body.response_format).toBeDefined();
    expect(stub!.requests[1]!.body.response_format).toBeUndefined();
    expect(stub!.requests[1]!.body.temperature).toBe(0);
  });

  it('does not fall back on a 400 that is not about response_format', async () => {
    const acts = await start(() => ({ status: 400, json: errorBody('model is required') }));
    const err = await runIn(activityEnv(), acts.judgeConvergence, judgeInput).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect(stub!.requests).toHaveLength(1);
  });

  it('fails retryably when the verdict cannot be parsed', async () => {
    const acts = await start(() => ({ json: completion({ content: 'I think it is fine.' }) }));
    const err = await runIn(activityEnv(), acts.judgeConvergence, judgeInput).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    const f = err as ApplicationFailure;
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe(FAILURE_TYPES.retryable);
    expect(f.message).toBe(ACTIVITY_TEXTS.judge.unparsable('critic', 'req_1'));
  });
});

describe('verdict parsing', () => {
  it('reads whole JSON, embedded JSON and rejects a non-boolean converged', () => {
    expect(parseVerdict('{"converged":true,"reason":"r"}')).toEqual({ converged: true, reason: 'r' });
    expect(parseVerdict('```json\n{"converged":false,"reason":"x \\" }"}\n```')).toEqual({ converged: false, reason: 'x " }' });
    expect(parseVerdict('{"converged":"yes","reason":"r"}')).toBeUndefined();
    expect(parseVerdict('no json here')).toBeUndefined();
  });

  it('skips unbalanced or invalid braces before the first real object', () => {
    expect(firstBalancedJson('a {b} then {"x": 1}', '{')).toEqual({ ok: true, value: { x: 1 } });
    expect(firstBalancedJson('{ unclosed', '{')).toEqual({ ok: false });
  });
});

describe('compactTranscript', () => {
  let stub: MiniLlm | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  const compactionInput: CompactionInput = {
    workflowId: 'wf-1',
    agent: 'writer',
    model: testModel,
    summary: 'Round 1: draft written.',
    entries: ['critic: score: 60, fix the intro', 'writer: new intro'],
    maxSummaryTokens: 50,
    timeoutMs: 30_000,
  };

  it('sends the previous summary and entries with the summary budget, and returns the bounded summary', async () => {
    stub = await startMiniLlm(() => ({ json: completion({ content: `  ${'s'.repeat(500)}  ` }) }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const result = await runIn(activityEnv(), acts.compactTranscript, compactionInput);
    const { body, headers } = stub.requests[0]!;
    expect(headers['x-troupe-kind']).toBe('compaction');
    expect(body.max_tokens).toBe(50);
    expect(body.messages).toEqual([
      { role: 'system', content: ACTIVITY_TEXTS.compaction.system('writer', 50) },
      { role: 'user', content: ACTIVITY_TEXTS.compaction.user('Round 1: draft written.', compactionInput.entries) },
    ]);
    expect(body.messages[0].content).toMatch(/decision.*open issue.*latest scores and verdicts/s);
    expect(body.messages[1].content).toContain('critic: score: 60, fix the intro');
    expect(result.summary).toBe('s'.repeat(200));
    expect(result.usage.totalTokens).toBe(15);
  });

  it('fails retryably on an empty summary', async () => {
    stub = await startMiniLlm(() => ({ json: completion({ content: '   ' }) }));
    const acts = createActivities({ baseUrl: stub.url, env: {} });
    const err = await runIn(activityEnv(), acts.compactTranscript, compactionInput).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).nonRetryable).toBe(false);
    expect((err as ApplicationFailure).message).toBe(ACTIVITY_TEXTS.compaction.empty('writer', 'req_1'));
  });
});
