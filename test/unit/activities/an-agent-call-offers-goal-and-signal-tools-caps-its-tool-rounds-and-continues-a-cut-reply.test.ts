import { createActivities } from '../../../src/activities';
import type { AgentCallInput, GoalSnapshot } from '../../../src/core/llm/contract';
import { GOAL_TOOL, SIGNAL_TOOL, BUILTIN_TOOL_TEXTS } from '../../../src/core/llm/builtin-tools';
import { activityEnv, runIn, testModel, testOffer } from '../../helpers/activity-env';
import { completion, errorBody, startMiniLlm, type MiniLlm, type Reply, type SeenRequest } from '../../helpers/mini-llm';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import { REPLY_TEXTS } from '../../../src/core/llm/follow-ups';
import { TURN_LIMITS, TURN_TEXTS } from '../../../src/core/llm/next-step';

const goal: GoalSnapshot = { objective: 'ship v1', status: 'active', turnCount: 3, maxTurns: 10 };

const input = (over: Partial<AgentCallInput> = {}): AgentCallInput => ({
  workflowId: 'wf-1',
  agent: 'writer',
  model: testModel,
  messages: [
    { role: 'system', content: 'You write.' },
    { role: 'user', content: 'Write a haiku.' },
  ],
  offer: testOffer(),
  timeoutMs: 30_000,
  ...over,
});

describe('callAgent', () => {
  let stub: MiniLlm | undefined;
  const start = async (script: (req: SeenRequest, i: number) => Reply) => {
    stub = await startMiniLlm(script);
    return createActivities({ baseUrl: stub.url, env: {} });
  };
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('sends messages, temperature and max_tokens, offers no tools when none are configured, and returns the reply', async () => {
    const acts = await start(() => ({
      json: completion({ content: 'An old pond', model: 'served-model', usage: { prompt_tokens: 12, completion_tokens: 4 } }),
    }));
    const result = await runIn(activityEnv(), acts.callAgent, input());
    const body = stub!.requests[0]!.body;
    expect(body).toEqual({
      model: 'test-model',
      temperature: 0.3,
      max_tokens: 256,
      messages: [
        { role: 'system', content: 'You write.' },
        { role: 'user', content: 'Write a haiku.' },
      ],
      // streamed unless the worker turns it off; this endpoint answers in one piece, read as before
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(result).toEqual({
      text: 'An old pond',
      toolEvents: [],
      usage: { promptTokens: 12, completionTokens: 4, totalTokens: 16 },
      llmCalls: 1,
      model: 'served-model',
      requestId: 'req_1',
      finishReason: 'stop',
      warnings: [],
      // the hash the workflow records: SHA-256 of the normalized result, first 12 hex characters
      resultHash: '3af58a892f6c',
    });
  });

  it('offers the goal and signal tool definitions and asks for json_schema output when a responseSchema is given', async () => {
    const acts = await start(() => ({ json: completion({ content: '{"score": 1}' }) }));
    const schema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };
    await runIn(activityEnv(), acts.callAgent, input({ offer: testOffer({ builtins: ['goal', 'signal'] }), goal, responseSchema: schema }));
    const body = stub!.requests[0]!.body;
    expect(body.tools).toEqual([GOAL_TOOL, SIGNAL_TOOL]);
    expect(body.tool_choice).toBeUndefined();
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'troupe_output', strict: false, schema },
    });
  });

  it('asks again without response_format when the endpoint rejects it, with a warning', async () => {
    const acts = await start((_req, i) =>
      i === 0
        ? { status: 400, json: errorBody("Invalid parameter: 'response_format' of type 'json_schema' is not supported") }
        : { json: completion({ content: '{"score": 3}' }) },
    );
    const schema = { type: 'object', properties: { score: { type: 'number' } } };
    const result = await runIn(activityEnv(), acts.callAgent, input({ responseSchema: schema }));
    expect(stub!.requests).toHaveLength(2);
    expect(stub!.requests[0]!.body.response_format).toBeDefined();
    expect(stub!.requests[1]!.body.response_format).toBeUndefined();
    expect(result.text).toBe('{"score": 3}');
    expect(result.warnings).toEqual([ACTIVITY_TEXTS.agent.noResponseFormat('writer')]);
  });

  it('does not retry other 400s even with a responseSchema', async () => {
    const acts = await start(() => ({ status: 400, json: errorBody('model is required') }));
    await expect(runIn(activityEnv(), acts.callAgent, input({ responseSchema: { type: 'object' } }))).rejects.toMatchObject({
      nonRetryable: true,
    });
    expect(stub!.requests).toHaveLength(1);
  });

  it('answers an invalid goal call (completed without evidence) with an error tool result and no event', async () => {
    const acts = await start((_req, i) =>
      i === 0
        ? { json: completion({ toolCalls: [{ id: 'c1', name: 'goal', arguments: { action: 'update_status', status: 'completed' } }] }) }
        : { json: completion({ content: 'done' }) },
    );
    const result = await runIn(activityEnv(), acts.callAgent, input({ offer: testOffer({ builtins: ['goal'] }), goal }));
    expect(result.toolEvents).toEqual([]);
    expect(result.text).toBe('done');
    const second = stub!.requests[1]!.body.messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function' }] });
    expect(second.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: BUILTIN_TOOL_TEXTS.errorCompletedNeedsEvidence });
  });

  it('turns valid goal and signal calls into events in call order, sums usage and counts calls', async () => {
    const acts = await start((_req, i) =>
      i === 0
        ? {
            json: completion({
              toolCalls: [
                { id: 'a', name: 'goal', arguments: { action: 'update_status', status: 'completed', evidence: 'tests pass' } },
                { id: 'b', name: 'signal', arguments: { type: 'need_approval', payload: { draft: 2 }, summary: 'ok?' } },
                { id: 'c', name: 'lookup', arguments: {} },
              ],
            }),
          }
        : { json: completion({ content: 'final' }) },
    );
    const result = await runIn(activityEnv(), acts.callAgent, input({ offer: testOffer({ builtins: ['goal', 'signal'] }), goal }));
    expect(result.toolEvents).toEqual([
      { tool: 'goal', action: 'update_status', status: 'completed', evidence: 'tests pass' },
      { tool: 'signal', type: 'need_approval', payload: { draft: 2 }, summary: 'ok?' },
    ]);
    expect(result.llmCalls).toBe(2);
    expect(result.usage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30 });
    expect(result.requestId).toBe('req_2');
    const toolMessages = stub!.requests[1]!.body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(['a', 'b', 'c']);
    expect(toolMessages[2].content).toBe(BUILTIN_TOOL_TEXTS.errorUnknownTool('lookup', ['goal', 'signal']));
  });

  it('caps the tool loop at max_tool_rounds (4 here) and makes one last call with tool_choice none', async () => {
    const acts = await start((_req, i) =>
      i < 5
        ? { json: completion({ toolCalls: [{ id: `s${i}`, name: 'signal', arguments: { type: `step_${i}` } }] }) }
        : { json: completion({ content: 'too many' }) },
    );
    const result = await runIn(activityEnv(), acts.callAgent, input({ offer: testOffer({ builtins: ['signal'], maxToolRounds: 4 }) }));
    expect(stub!.requests).toHaveLength(4 + 1);
    expect(stub!.requests.slice(0, 4).map((r) => r.body.tool_choice)).toEqual([undefined, undefined, undefined, undefined]);
    expect(stub!.requests[4]!.body.tool_choice).toBe('none');
    expect(stub!.requests[4]!.body.tools).toEqual([SIGNAL_TOOL]);
    expect(result.toolEvents.map((e) => (e.tool === 'signal' ? e.type : e.tool))).toEqual([
      'step_0',
      'step_1',
      'step_2',
      'step_3',
    ]);
    expect(result.llmCalls).toBe(5);
    expect(result.warnings).toEqual([TURN_TEXTS.closingCallIgnored('writer', 4)]);
  });

  it('cuts a 3 MB reply to 256 KiB with the truncation marker and a warning', async () => {
    const big = 'é'.repeat(1_500_000);
    const acts = await start(() => ({ json: completion({ content: big }) }));
    const result = await runIn(activityEnv(), acts.callAgent, input());
    const bytes = Buffer.byteLength(result.text, 'utf8');
    expect(bytes).toBeLessThanOrEqual(TURN_LIMITS.maxTextBytes);
    expect(bytes).toBeGreaterThan(TURN_LIMITS.maxTextBytes - 64);
    const match = /\n\[troupe: truncated (\d+) bytes\]$/.exec(result.text);
    expect(match).not.toBeNull();
    const kept = result.text.slice(0, match!.index);
    expect(kept).toBe('é'.repeat(kept.length));
    expect(Buffer.byteLength(kept, 'utf8') + Number(match![1])).toBe(3_000_000);
    expect(result.warnings).toEqual([TURN_TEXTS.truncated('writer', Number(match![1]), TURN_LIMITS.maxTextBytes)]);
  });

  it('asks once to continue a reply cut at max_tokens, and joins the two texts', async () => {
    const replies = [completion({ content: 'a reply cut sho', finishReason: 'length' }), completion({ content: 'rt, and finished.' })];
    const acts = await start(() => ({ json: replies.shift() }));
    const result = await runIn(activityEnv(), acts.callAgent, input());
    expect(result).toMatchObject({ text: 'a reply cut short, and finished.', finishReason: 'stop', llmCalls: 2 });
    expect(result.warnings).toEqual([REPLY_TEXTS.continued('writer')]);
  });

  it('keeps the length finish, with a warning, when the continuation is cut too', async () => {
    const acts = await start(() => ({ json: completion({ content: 'cut sho', finishReason: 'length' }) }));
    const result = await runIn(activityEnv(), acts.callAgent, input());
    expect(result).toMatchObject({ text: 'cut shocut sho', finishReason: 'length', llmCalls: 2 });
    expect(result.warnings).toEqual([REPLY_TEXTS.continued('writer'), TURN_TEXTS.lengthFinish('writer')]);
  });
});
