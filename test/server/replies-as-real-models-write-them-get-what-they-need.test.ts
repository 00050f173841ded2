/**
 * Replies as real models write them (docs/semantics.md, "Agent calls"), through the real workflow,
 * worker and HTTP stub:
 *
 * - a tool call written as `<tool_call>` text is run as that call, with a warning; one that cannot
 *   run as written (a key written twice) gets one corrective re-ask;
 * - `tool_choice: required` is sent on a dispatch's first call; an endpoint that ignores it and answers
 *   in prose gets one request to call a tool;
 * - a reply cut by max_tokens is continued once; still cut, the run ends `failed/truncated_output`
 *   naming the agent and max_tokens, unless `on_truncated: accept`;
 * - a final agent of a role with an output schema gets the schema from its first call (in its prompt
 *   and as `response_format`), so a valid first reply needs no retry; an endpoint that refuses
 *   `response_format` is remembered and sent none again;
 * - a `regex` matcher reads the reply trimmed at both ends;
 * - a goal no agent reported on ends `goal_never_reported`;
 * - a timed-out model call names the agent and the setting; a timed-out tool its timeout_ms.
 */
import { REPLY_TEXTS } from '../../src/core/llm/follow-ups';
import { RUN_END_TEXTS } from '../../src/core/ending/texts';
import { GOAL_TEXTS } from '../../src/core/goals/texts';
import { PROMPT_TEXTS } from '../../src/core/prompts/build';
import { openAiError } from '../helpers/stub-llm';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const solo = (agent: string, extra = '') => `
name: solo
agents:
  writer: { instructions: "Write."${agent} }
collaboration:
  topology: pipeline
  agents: [writer]
${extra}`;

describe('replies as real models write them', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test('a tool call written as text is run as that call, with a warning; one that cannot run is asked for once more', async () => {
    // Qwen's block, as a model served without a tool-call parser writes it
    const asText = '<tool_call>\n{"name": "shout", "arguments": {"text": "hi", "times": 2}}\n</tool_call>';
    t.h.stub.script('writer', [{ text: asText }, { text: 'HI HI, done' }]);
    const r = await t.h.run(solo(', tools: [shout]'));
    expect(r).toMatchObject({ status: 'completed', finalText: 'HI HI, done' });
    expect(r.usage.toolCalls?.total).toBe(1);
    expect(r.warnings).toContain(REPLY_TEXTS.ranTextCall('writer', 'shout'));
    // the model saw its call made and the tool's result, not a re-ask
    const second = (t.h.stub.requestsFor('writer')[1].body as { messages: unknown[] }).messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'shout', arguments: '{"text":"hi","times":2}' } }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('HI') });
    // the agent with tools was told to call them, with no result fence competing
    expect(t.h.stub.requestsFor('writer')[0].messages[0].content).toContain(PROMPT_TEXTS.toolsContract);

    // a key written twice cannot run as written (which value would the tool get?): asked once more
    t.h.stub.reset();
    const twice = '{"name": "shout", "arguments": {"text": "hi", "text": "HO", "times": 1}}';
    t.h.stub.script('writer', [{ text: twice }, { toolCalls: [{ name: 'shout', arguments: { text: 'hi', times: 1 } }] }, { text: 'done' }]);
    const asked = await t.h.run(solo(', tools: [shout]'));
    expect(asked).toMatchObject({ status: 'completed', finalText: 'done' });
    expect(asked.usage.toolCalls?.total).toBe(1);
    expect(asked.warnings).toContain(REPLY_TEXTS.callAsTextWarning('writer', 'shout'));
    expect(t.h.stub.requestsFor('writer')[1].messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.callAsText('shout') });
  });

  test('tool_choice: required is sent on the first call only; a prose reply is told once to call a tool', async () => {
    // an endpoint that does not enforce tool_choice answers in prose
    t.h.stub.script('writer', [
      { text: 'I know this already.' },
      { toolCalls: [{ name: 'shout', arguments: { text: 'hi', times: 1 } }] },
      { text: 'HI, done' },
    ]);
    const r = await t.h.run(solo(', tools: [shout], tool_choice: required'));
    expect(r).toMatchObject({ status: 'completed', finalText: 'HI, done' });
    expect(r.usage.toolCalls?.total).toBe(1);
    expect(r.warnings).toContain(REPLY_TEXTS.mustCallWarning('writer'));
    const [first, nudged, after] = t.h.stub.requestsFor('writer').map((q) => q.body as { tool_choice?: string; messages: unknown[] });
    expect(first.tool_choice).toBe('required');
    expect(nudged.tool_choice).toBe('required');
    expect(nudged.messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.mustCall(['shout']) });
    // after a tool round the model may answer
    expect(after.tool_choice).toBeUndefined();

    // without it, a prose reply is the answer
    t.h.stub.reset();
    t.h.stub.script('writer', [{ text: 'I know this already.' }]);
    const auto = await t.h.run(solo(', tools: [shout]'));
    expect(auto).toMatchObject({ status: 'completed', finalText: 'I know this already.' });
    expect((t.h.stub.requestsFor('writer')[0].body as { tool_choice?: string }).tool_choice).toBeUndefined();
  });

  test('a reply cut by max_tokens is continued once; still cut, the run fails naming max_tokens, unless accepted', async () => {
    t.h.stub.script('writer', [{ text: 'The first half, ', finishReason: 'length' }, { text: 'and the second.' }]);
    const joined = await t.h.run(solo(''));
    expect(joined).toMatchObject({ status: 'completed', finalText: 'The first half, and the second.' });
    expect(t.h.stub.requestsFor('writer')[1].messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.continueCut });

    t.h.stub.reset();
    t.h.stub.script('writer', [{ text: 'cut ', finishReason: 'length' }]);
    const cut = await t.h.run(solo(', model: { max_tokens: 64 }'));
    expect(cut).toMatchObject({ status: 'failed', reason: 'truncated_output', reasonText: RUN_END_TEXTS.truncated('writer', 64), steps: 1 });

    t.h.stub.reset();
    t.h.stub.script('writer', [{ text: 'cut ', finishReason: 'length' }]);
    expect(await t.h.run(solo(', on_truncated: accept'))).toMatchObject({ status: 'completed', finalText: 'cut cut ' });
  });

  test('an output schema is in the first call; a valid first reply needs no retry; a refusing endpoint is remembered', async () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const role = solo('', `output: { schema: ${JSON.stringify(schema)} }`);
    t.h.stub.script('writer', [{ text: '{"title": "Dune"}' }]);
    const valid = await t.h.run(role);
    expect(valid).toMatchObject({ status: 'completed', outputValid: true, output: { title: 'Dune' }, steps: 1 });
    const first = t.h.stub.requestsFor('writer')[0];
    expect(first.responseFormat).toMatchObject({ type: 'json_schema', json_schema: { schema } });
    expect(first.messages[0].content).toContain(PROMPT_TEXTS.outputContract(JSON.stringify(schema)));

    // an endpoint that refuses response_format: asked again without it, and not sent it again
    t.h.stub.reset();
    t.h.stub.respond((req) => (req.responseFormat ? { status: 400, errorBody: openAiError("Unsupported parameter: 'response_format'", 'invalid_request_error') } : { text: '{"title": "Emma"}' }));
    expect(await t.h.run(role)).toMatchObject({ status: 'completed', output: { title: 'Emma' } });
    expect(t.h.stub.requestsFor('writer').map((r) => r.responseFormat !== undefined)).toEqual([true, false]);
    expect(await t.h.run(role)).toMatchObject({ status: 'completed', output: { title: 'Emma' } });
    expect(t.h.stub.requestsFor('writer').map((r) => r.responseFormat !== undefined)).toEqual([true, false, false]);
  });

  test('a regex reads the reply trimmed at both ends', async () => {
    t.h.stub.script('writer', [{ text: '\n\n   APPROVED, ship it\n' }]);
    const r = await t.h.run(
      solo('', 'collaboration:\n  topology: review-loop\n  agents: [writer]\n  max_iterations: 3\n  termination:\n    any_of:\n      - result_matches: { agent: writer, regex: "^APPROVED" }\n').replace(
        'collaboration:\n  topology: pipeline\n  agents: [writer]\n',
        '',
      ),
    );
    expect(r).toMatchObject({ status: 'completed', reason: 'result_match', steps: 1 });
  });

  test('a goal no agent reported on says so', async () => {
    t.h.stub.script('writer', [{ text: 'I wrote it.' }]);
    const r = await t.h.run(solo(', tools: [goal]', 'goal: { objective: "write it", max_turns: 1 }\n'));
    expect(r).toMatchObject({
      status: 'limit_reached',
      reason: 'goal_never_reported',
      reasonText: GOAL_TEXTS.neverReported(GOAL_TEXTS.turnLimit(1, 1)),
    });
  });

  test('a model call out of time names the agent and the setting; a tool out of time its timeout_ms', async () => {
    t.h.stub.script('writer', [{ delayMs: 10_000 }]);
    const slow = await t.h.run(solo(', timeout_ms: 1500'));
    expect(slow).toMatchObject({ status: 'failed', reason: 'activity_failed' });
    expect(slow.diagnostics?.message).toMatch(/^agent writer: no reply within 1500 ms .*raise agents\.writer\.timeout_ms \(or model\.timeout_ms\)$/);

    t.h.stub.reset();
    t.h.stub.script('writer', [{ toolCalls: [{ name: 'sleepy', arguments: {} }] }, { text: 'gave up' }]);
    const tool = await t.h.run(solo(', tools: [sleepy]'));
    expect(tool).toMatchObject({ status: 'completed', finalText: 'gave up' });
    const answer = t.h.stub.requestsFor('writer')[1].messages.at(-1)!.content;
    expect(answer).toContain('did not finish within its timeout_ms of 2000 ms');
    expect(answer).toContain('attempt 2 of 2');
  }, 60_000);
});
