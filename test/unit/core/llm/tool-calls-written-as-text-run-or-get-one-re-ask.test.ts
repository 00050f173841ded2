/**
 * A model that writes a tool call as text instead of making it (Qwen's `<tool_call>` block, a bare
 * `{"name":…,"arguments":…}` object, such an object in a fenced or result block or other tags) has
 * that call run as if it had been made, with a warning. A call that cannot run as written (arguments
 * that are no object, a key written twice, the tool's definition echoed back) gets one corrective
 * re-ask; written so again, the text is the result with another warning — never silently. Only
 * offered tools count: a JSON answer with a `name` stays an answer. `tool_choice: required` is sent,
 * and a prose reply from an endpoint that ignores it is asked once to call a tool. An empty reply is
 * asked once for the final answer.
 */
import { createActivities } from '../../../../src/activities';
import { REPLY_TEXTS } from '../../../../src/activities/replies';
import type { AgentCallInput } from '../../../../src/core/llm/contract';
import type { ModelCallInput } from '../../../../src/core/llm/tool-contract';
import { toolCallInText } from '../../../../src/core/llm/tool-text';
import { GOAL_TOOL } from '../../../../src/core/llm/builtin-tools';
import { activityEnv, runIn, testModel } from '../../../helpers/activity-env';
import { completion, startMiniLlm, type MiniLlm, type Reply } from '../../../helpers/mini-llm';

describe('a tool call written as text', () => {
  const offered = ['word_count', 'files__read_text_file'];

  it.each([
    ['Qwen’s block', '<tool_call>\n{"name": "word_count", "arguments": {"text": "a b"}}\n</tool_call>', 'word_count', '{"text":"a b"}'],
    ['an unclosed block', 'Let me count.\n<tool_call>{"name": "word_count", "arguments": {}}', 'word_count', '{}'],
    ['a bare object', ' {"name": "files__read_text_file", "arguments": {"path": "a.md"}} ', 'files__read_text_file', '{"path":"a.md"}'],
    ['a result block', 'notes\n```result\n{"name": "word_count", "parameters": {"text": "x"}}\n```', 'word_count', '{"text":"x"}'],
    ['a json fence, arguments as a string', '```json\n{"function": {"name": "word_count", "arguments": "{}"}}\n```', 'word_count', '{}'],
    // Qwen2.5-Coder 1.5B's reply to the research example: prose, then the calls it means to make
    // listed one after the other in one fence (no single JSON text); the first is the one to run
    [
      'a fence of several calls after prose',
      'Here is how we can approach this task:\n\n1. **Read Text File**: call `files__read_text_file`.\n\n```json\n' +
        '{\n  "name": "files__list_allowed_directories",\n  "arguments": {}\n}\n\n' +
        '{\n  "name": "files__read_text_file",\n  "arguments": {\n    "path": "notes.txt"\n  }\n}\n\n' +
        '{\n  "name": "word_count",\n  "arguments": {\n    "text": "Your text content goes here"\n  }\n}\n```\n',
      'files__read_text_file',
      '{"path":"notes.txt"}',
    ],
    ['a call in a sentence', 'I will now run {"name": "word_count", "arguments": {"text": "a b c"}} and report.', 'word_count', '{"text":"a b c"}'],
    // what the 1.5B model wrote when told to call a tool: doubled braces, the template's <tools> tag
    ['doubled braces, null arguments', '{{"name": "word_count", "arguments": null}}', 'word_count', '{}'],
    ['a <tools> tag', '<tools> {"name": "word_count", "arguments": {"text": "a"}} </tools>', 'word_count', '{"text":"a"}'],
  ])('is found, ready to run, in %s', (_what, text, tool, args) => {
    expect(toolCallInText(text, offered)).toEqual({ name: tool, arguments: args });
  });

  it.each([
    ['the tool’s definition echoed back', '<tools> {"function": {"description": "Counts.", "name": "word_count", "parameters": {"type": "object"}}} </tools>'],
    ['a key written twice', '{"name": "word_count", "arguments": {"text": "a", "text": "b"}}'],
    ['arguments that are no object', '{"name": "word_count", "arguments": ["a"]}'],
    ['arguments in a string that is no object', '{"name": "word_count", "arguments": "a b"}'],
  ])('is found but cannot run as written: %s', (_what, text) => {
    expect(toolCallInText(text, offered)).toEqual({ name: 'word_count' });
  });

  it.each([
    ['a tool not offered', '{"name": "deploy", "arguments": {}}'],
    ['an answer that has a name', '{"name": "Ada Lovelace", "born": 1815}'],
    ['prose', 'The word_count tool would say 7.'],
    ['broken JSON', '<tool_call>{"name": "word_count", "arguments": </tool_call>'],
    ['an answer with objects but no call', 'Counts: {"word_count": 7} and {"name": "word_count", "result": 7}.'],
  ])('is not found in %s', (_what, text) => {
    expect(toolCallInText(text, offered)).toBeUndefined();
  });
});

describe('the activities', () => {
  let llm: MiniLlm | undefined;
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });
  const start = async (replies: Reply[]) => {
    llm = await startMiniLlm(() => replies.shift() ?? { json: completion({ content: 'default' }) });
    return createActivities({ baseUrl: llm.url, env: {} });
  };
  const asText = '<tool_call>{"name": "goal", "arguments": {"action": "add_evidence", "evidence": "done"}}</tool_call>';
  // the goal tool's definition, echoed back: a call that cannot run as written
  const echoed = '<tools>{"function": {"name": "goal", "description": "Report.", "parameters": {"type": "object"}}}</tools>';
  const agentInput = (extra: Partial<AgentCallInput> = {}): AgentCallInput => ({
    workflowId: 'wf',
    agent: 'worker',
    model: testModel,
    messages: [{ role: 'user', content: 'work' }],
    tools: ['goal'],
    goal: { objective: 'o', status: 'active', turnCount: 0, maxTurns: 3 },
    timeoutMs: 30_000,
    ...extra,
  });
  const modelInput = (extra: Partial<ModelCallInput> = {}): ModelCallInput => ({
    workflowId: 'wf',
    agent: 'worker',
    model: testModel,
    messages: [{ role: 'user', content: 'work' }],
    tools: [GOAL_TOOL],
    timeoutMs: 30_000,
    ...extra,
  });
  type Sent = { messages: Array<{ role: string; content: string | null; tool_calls?: unknown[] }>; tool_choice?: string };
  const sent = (i: number) => llm!.requests[i].body as Sent;

  it('callAgent runs a call written as text as that call, with a warning, and the run gets its event', async () => {
    const acts = await start([{ json: completion({ content: asText }) }, { json: completion({ content: 'reported' }) }]);
    const r = await runIn(activityEnv(), acts.callAgent, agentInput());
    expect(r).toMatchObject({ text: 'reported', llmCalls: 2, toolEvents: [{ tool: 'goal', action: 'add_evidence' }] });
    expect(r.warnings).toEqual([REPLY_TEXTS.ranTextCall('worker', 'goal')]);
    // the model sees its call made and answered, not its text
    expect(sent(1).messages.slice(-2)).toMatchObject([
      { role: 'assistant', content: null, tool_calls: [{ function: { name: 'goal', arguments: '{"action":"add_evidence","evidence":"done"}' } }] },
      { role: 'tool' },
    ]);
  });

  it('callModel returns a call written as text as a call, with no text', async () => {
    const acts = await start([{ json: completion({ content: asText }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput());
    expect(r).toMatchObject({ text: '', toolCalls: [{ name: 'goal', arguments: '{"action":"add_evidence","evidence":"done"}' }], finishReason: 'tool_calls' });
    expect(r.warnings).toEqual([REPLY_TEXTS.ranTextCall('worker', 'goal')]);
    expect(llm!.requests).toHaveLength(1);
  });

  it('a call that cannot run as written is asked for once; written so again, the text is the result with a second warning', async () => {
    const acts = await start([{ json: completion({ content: echoed }) }, { json: completion({ content: echoed }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput());
    expect(r).toMatchObject({ text: echoed, toolCalls: [], llmCalls: 2 });
    expect(r.warnings).toEqual([REPLY_TEXTS.callAsTextWarning('worker', 'goal'), REPLY_TEXTS.callAsTextAgain('worker', 'goal')]);
    expect(sent(1).messages.slice(-2)).toEqual([
      { role: 'assistant', content: echoed },
      { role: 'user', content: REPLY_TEXTS.callAsText('goal') },
    ]);
  });

  it('not on the closing call (tool_choice none), where no tool may be called', async () => {
    const acts = await start([{ json: completion({ content: asText }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput({ toolChoice: 'none' }));
    expect(r).toMatchObject({ text: asText, toolCalls: [], warnings: [] });
    expect(llm!.requests).toHaveLength(1);
  });

  it('tool_choice required: sent; a prose reply is asked once to call a tool; prose again stands', async () => {
    const acts = await start([{ json: completion({ content: 'I know.' }) }, { json: completion({ content: 'Still no.' }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput({ toolChoice: 'required' }));
    expect(r).toMatchObject({ text: 'Still no.', toolCalls: [], llmCalls: 2 });
    expect(r.warnings).toEqual([REPLY_TEXTS.mustCallWarning('worker')]);
    expect(sent(0).tool_choice).toBe('required');
    expect(sent(1).messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.mustCall(['goal']) });
  });

  it('an empty reply is asked once for the final answer; empty again, it stands; a refusal is not asked', async () => {
    const acts = await start([{ json: completion({ content: '' }) }, { json: completion({ content: 'The answer.' }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput());
    expect(r).toMatchObject({ text: 'The answer.', llmCalls: 2, warnings: [REPLY_TEXTS.emptyWarning('worker')] });
    expect(sent(1).messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.emptyReply });
    await llm!.close();

    const twice = await start([{ json: completion({ content: '\n' }) }, { json: completion({ content: '' }) }]);
    expect(await runIn(activityEnv(), twice.callAgent, agentInput({ tools: [] }))).toMatchObject({ text: '', llmCalls: 2 });
    await llm!.close();

    const refusal = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' } };
    const refusing = await start([{ json: { ...(completion({ content: '' }) as object), choices: [refusal] } }]);
    expect(await runIn(activityEnv(), refusing.callModel, modelInput())).toMatchObject({ text: 'I cannot help with that.' });
    expect(llm!.requests).toHaveLength(1);
  });

  it('callAgent with tool_choice required: required until the first tool round, then the model may answer', async () => {
    const acts = await start([
      { json: completion({ content: 'I know.' }) },
      { json: completion({ toolCalls: [{ name: 'goal', arguments: { action: 'add_evidence', evidence: 'done' } }] }) },
      { json: completion({ content: 'reported' }) },
    ]);
    const r = await runIn(activityEnv(), acts.callAgent, agentInput({ toolChoice: 'required' }));
    expect(r).toMatchObject({ text: 'reported', llmCalls: 3, toolEvents: [{ tool: 'goal' }] });
    expect(r.warnings).toEqual([REPLY_TEXTS.mustCallWarning('worker')]);
    expect([0, 1, 2].map((i) => sent(i).tool_choice)).toEqual(['required', 'required', undefined]);
  });
});
