/**
 * The activities with a model that writes a tool call as text instead of making it: a reply that is
 * only the call (Qwen's `<tool_call>` block, a bare `{"name":…,"arguments":…}` object, one fenced
 * block) has that call run as if it had been made, with a warning; a call amid prose or one quoted
 * from the request's messages is not run and the reply is the answer, with a warning; the model's
 * `text_tool_calls: off` reads none. A call that cannot run as written (arguments that are no
 * object, a key written twice, the tool's definition echoed back) gets one corrective re-ask;
 * written so again, the text is the result with another warning — never silently.
 * `tool_choice: required` is sent, and a prose reply from an endpoint that ignores it is asked once
 * to call a tool. An empty reply is asked once for the final answer. (The parser's cases:
 * `a-call-written-as-text-runs-only-when-it-is-the-whole-reply.test.ts`.)
 */
import { createActivities } from '../../../../src/activities';
import { REPLY_TEXTS } from '../../../../src/core/llm/follow-ups';
import type { AgentCallInput, ModelCallInput } from '../../../../src/core/llm/contract';
import { activityEnv, runIn, testModel, testOffer } from '../../../helpers/activity-env';
import { completion, startMiniLlm, type MiniLlm, type Reply } from '../../../helpers/mini-llm';

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
    offer: testOffer({ builtins: ['goal'] }),
    goal: { objective: 'o', status: 'active', turnCount: 0, maxTurns: 3 },
    timeoutMs: 30_000,
    ...extra,
  });
  const modelInput = (extra: Partial<ModelCallInput> = {}): ModelCallInput => ({
    workflowId: 'wf',
    agent: 'worker',
    model: testModel,
    messages: [{ role: 'user', content: 'work' }],
    offer: testOffer({ builtins: ['goal'] }),
    turn: { round: 0 },
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
    expect(r.next).toMatchObject({ kind: 'run_tools', text: '', calls: [{ name: 'goal', arguments: '{"action":"add_evidence","evidence":"done"}' }], finishReason: 'tool_calls' });
    expect(r.warnings).toEqual([REPLY_TEXTS.ranTextCall('worker', 'goal')]);
    expect(llm!.requests).toHaveLength(1);
  });

  it('a call that cannot run as written is asked for once; written so again, the text is the result with a second warning', async () => {
    const acts = await start([{ json: completion({ content: echoed }) }, { json: completion({ content: echoed }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput());
    expect(r).toMatchObject({ next: { kind: 'final', text: echoed }, llmCalls: 2 });
    expect(r.warnings).toEqual([REPLY_TEXTS.callAsTextWarning('worker', 'goal'), REPLY_TEXTS.callAsTextAgain('worker', 'goal')]);
    expect(sent(1).messages.slice(-2)).toEqual([
      { role: 'assistant', content: echoed },
      { role: 'user', content: REPLY_TEXTS.callAsText('goal') },
    ]);
  });

  it('a call amid prose is the answer, with a warning; the model is not asked again', async () => {
    const doc = `To add evidence, the agent writes:\n\n\`\`\`json\n${asText}\n\`\`\`\n\nThe run records it.`;
    const acts = await start([{ json: completion({ content: doc }) }]);
    const r = await runIn(activityEnv(), acts.callAgent, agentInput());
    expect(r).toMatchObject({ text: doc, llmCalls: 1, toolEvents: [] });
    expect(r.warnings).toEqual([REPLY_TEXTS.quotedCall('worker', 'goal')]);
  });

  it('a whole-reply call that stands in a message the model was given is the answer, with a warning', async () => {
    const call = '{"name": "goal", "arguments": {"action": "add_evidence", "evidence": "done"}}';
    const acts = await start([{ json: completion({ content: call }) }]);
    const given: ModelCallInput['messages'] = [
      { role: 'user', content: 'summarize the page' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'fetch', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: JSON.stringify({ body: `<p>${call}</p>` }) },
    ];
    const r = await runIn(activityEnv(), acts.callModel, modelInput({ messages: given }));
    expect(r.next).toMatchObject({ kind: 'final', text: call });
    expect(r.warnings).toEqual([REPLY_TEXTS.echoedCall('worker', 'goal')]);
    expect(llm!.requests).toHaveLength(1);
  });

  it('text_tool_calls off: a reply that is only a call is the answer, without a warning', async () => {
    const acts = await start([{ json: completion({ content: asText }) }]);
    const r = await runIn(activityEnv(), acts.callAgent, agentInput({ model: { ...testModel, textToolCalls: 'off' } }));
    expect(r).toMatchObject({ text: asText, llmCalls: 1, toolEvents: [], warnings: [] });
    await llm!.close();
    const model = await start([{ json: completion({ content: asText }) }]);
    const m = await runIn(activityEnv(), model.callModel, modelInput({ model: { ...testModel, textToolCalls: 'off' } }));
    expect(m).toMatchObject({ next: { kind: 'final', text: asText }, warnings: [] });
  });

  it('callModel marks a call written as text, so an approval request can say so', async () => {
    const acts = await start([{ json: completion({ content: asText }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput());
    // a written call has no id of its own: it gets the one a call without an id gets
    expect(r.next).toMatchObject({ kind: 'run_tools', calls: [{ id: 'call_0_0', name: 'goal', arguments: '{"action":"add_evidence","evidence":"done"}', asText: true, run: 'builtin' }] });
  });

  it('not on the closing call (tool_choice none), where no tool may be called', async () => {
    const acts = await start([{ json: completion({ content: asText }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput({ turn: { round: 0, closing: true } }));
    expect(sent(0).tool_choice).toBe('none');
    expect(r).toMatchObject({ next: { kind: 'final', text: asText }, warnings: [] });
    expect(llm!.requests).toHaveLength(1);
  });

  it('tool_choice required: sent; a prose reply is asked once to call a tool; prose again stands', async () => {
    const acts = await start([{ json: completion({ content: 'I know.' }) }, { json: completion({ content: 'Still no.' }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput({ offer: testOffer({ builtins: ['goal'], toolChoice: 'required' }) }));
    expect(r).toMatchObject({ next: { kind: 'final', text: 'Still no.' }, llmCalls: 2 });
    expect(r.warnings).toEqual([REPLY_TEXTS.mustCallWarning('worker')]);
    expect(sent(0).tool_choice).toBe('required');
    expect(sent(1).messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.mustCall(['goal']) });
  });

  it('an empty reply is asked once for the final answer; empty again, it stands; a refusal is not asked', async () => {
    const acts = await start([{ json: completion({ content: '' }) }, { json: completion({ content: 'The answer.' }) }]);
    const r = await runIn(activityEnv(), acts.callModel, modelInput());
    expect(r).toMatchObject({ next: { kind: 'final', text: 'The answer.' }, llmCalls: 2, warnings: [REPLY_TEXTS.emptyWarning('worker')] });
    expect(sent(1).messages.at(-1)).toEqual({ role: 'user', content: REPLY_TEXTS.emptyReply });
    await llm!.close();

    const twice = await start([{ json: completion({ content: '\n' }) }, { json: completion({ content: '' }) }]);
    expect(await runIn(activityEnv(), twice.callAgent, agentInput({ offer: testOffer() }))).toMatchObject({ text: '', llmCalls: 2 });
    await llm!.close();

    const refusal = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' } };
    const refusing = await start([{ json: { ...(completion({ content: '' }) as object), choices: [refusal] } }]);
    expect(await runIn(activityEnv(), refusing.callModel, modelInput())).toMatchObject({ next: { kind: 'final', text: 'I cannot help with that.' } });
    expect(llm!.requests).toHaveLength(1);
  });

  it('callAgent with tool_choice required: required until the first tool round, then the model may answer', async () => {
    const acts = await start([
      { json: completion({ content: 'I know.' }) },
      { json: completion({ toolCalls: [{ name: 'goal', arguments: { action: 'add_evidence', evidence: 'done' } }] }) },
      { json: completion({ content: 'reported' }) },
    ]);
    const r = await runIn(activityEnv(), acts.callAgent, agentInput({ offer: testOffer({ builtins: ['goal'], toolChoice: 'required' }) }));
    expect(r).toMatchObject({ text: 'reported', llmCalls: 3, toolEvents: [{ tool: 'goal' }] });
    expect(r.warnings).toEqual([REPLY_TEXTS.mustCallWarning('worker')]);
    expect([0, 1, 2].map((i) => sent(i).tool_choice)).toEqual(['required', 'required', undefined]);
  });
});
