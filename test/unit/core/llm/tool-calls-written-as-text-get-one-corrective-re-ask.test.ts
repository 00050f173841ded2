/**
 * A model that writes a tool call as text instead of making it (Qwen's `<tool_call>` block, a bare
 * `{"name":…,"arguments":…}` object, such an object in a fenced or result block) gets one corrective
 * re-ask within the same activity and a warning; written as text again, the text is the result with
 * another warning — never silently. Only offered tools count: a JSON answer with a `name` stays an
 * answer.
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
    ['Qwen’s block', '<tool_call>\n{"name": "word_count", "arguments": {"text": "a b"}}\n</tool_call>', 'word_count'],
    ['an unclosed block', 'Let me count.\n<tool_call>{"name": "word_count", "arguments": {}}', 'word_count'],
    ['a bare object', ' {"name": "files__read_text_file", "arguments": {"path": "a.md"}} ', 'files__read_text_file'],
    ['a result block', 'notes\n```result\n{"name": "word_count", "parameters": {"text": "x"}}\n```', 'word_count'],
    ['a json fence', '```json\n{"function": {"name": "word_count", "arguments": "{}"}}\n```', 'word_count'],
    // Qwen2.5-Coder 1.5B's reply to the research example: prose, then the calls it means to make
    // listed one after the other in one fence (no single JSON text)
    [
      'a fence of several calls after prose',
      'Here is how we can approach this task:\n\n1. **Read Text File**: call `files__read_text_file`.\n\n```json\n' +
        '{\n  "name": "files__list_allowed_directories",\n  "arguments": {}\n}\n\n' +
        '{\n  "name": "files__read_text_file",\n  "arguments": {\n    "path": "notes.txt"\n  }\n}\n\n' +
        '{\n  "name": "word_count",\n  "arguments": {\n    "text": "Your text content goes here"\n  }\n}\n```\n',
      'files__read_text_file',
    ],
    ['a call in a sentence', 'I will now run {"name": "word_count", "arguments": {"text": "a b c"}} and report.', 'word_count'],
  ])('is found in %s', (_what, text, tool) => {
    expect(toolCallInText(text, offered)).toBe(tool);
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

describe('the activities re-ask once', () => {
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

  it('callAgent: the re-asked model calls the tool through the interface, and the run gets its event', async () => {
    const acts = await start([
      { json: completion({ content: asText }) },
      { json: completion({ toolCalls: [{ name: 'goal', arguments: { action: 'add_evidence', evidence: 'done' } }] }) },
      { json: completion({ content: 'reported' }) },
    ]);
    const input: AgentCallInput = {
      workflowId: 'wf',
      agent: 'worker',
      model: testModel,
      messages: [{ role: 'user', content: 'work' }],
      tools: ['goal'],
      goal: { objective: 'o', status: 'active', turnCount: 0, maxTurns: 3 },
      timeoutMs: 30_000,
    };
    const r = await runIn(activityEnv(), acts.callAgent, input);
    expect(r).toMatchObject({ text: 'reported', llmCalls: 3, toolEvents: [{ tool: 'goal', action: 'add_evidence' }] });
    expect(r.warnings).toEqual([REPLY_TEXTS.callAsTextWarning('worker', 'goal')]);
    const second = llm!.requests[1].body.messages as Array<{ role: string; content: string }>;
    expect(second.slice(-2)).toEqual([
      { role: 'assistant', content: asText },
      { role: 'user', content: REPLY_TEXTS.callAsText('goal') },
    ]);
  });

  it('callModel: asked once; written as text again, the text is the result with a second warning', async () => {
    const acts = await start([{ json: completion({ content: asText }) }, { json: completion({ content: asText }) }]);
    const input: ModelCallInput = {
      workflowId: 'wf',
      agent: 'worker',
      model: testModel,
      messages: [{ role: 'user', content: 'work' }],
      tools: [GOAL_TOOL],
      timeoutMs: 30_000,
    };
    const r = await runIn(activityEnv(), acts.callModel, input);
    expect(r).toMatchObject({ text: asText, toolCalls: [], llmCalls: 2 });
    expect(r.warnings).toEqual([REPLY_TEXTS.callAsTextWarning('worker', 'goal'), REPLY_TEXTS.callAsTextAgain('worker', 'goal')]);
    expect(llm!.requests).toHaveLength(2);
  });

  it('not on the closing call (tool_choice none), where no tool may be called', async () => {
    const acts = await start([{ json: completion({ content: asText }) }]);
    const r = await runIn(activityEnv(), acts.callModel, {
      workflowId: 'wf',
      agent: 'worker',
      model: testModel,
      messages: [{ role: 'user', content: 'work' }],
      tools: [GOAL_TOOL],
      toolChoice: 'none',
      timeoutMs: 30_000,
    });
    expect(r).toMatchObject({ text: asText, warnings: [] });
    expect(llm!.requests).toHaveLength(1);
  });
});
