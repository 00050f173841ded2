/**
 * The one decision after a model turn (`core/llm/next-step.ts`), which the agent activity, the
 * model-call activity and the workflow's tool dispatch all carry out: the final answer, the calls to
 * run (and which wait for a human), the handoff (the first transfer made, the rest refused), one more
 * request (the follow-ups), the closing call after `max_tool_rounds`.
 */
import type { FollowUpsUsed } from '../../../../src/core/llm/follow-ups';
import { REPLY_TEXTS } from '../../../../src/core/llm/follow-ups';
import { afterTools, answerWithoutRunning, nextRequest, nextStep, TURN_TEXTS, type ModelReply, type TurnSetting } from '../../../../src/core/llm/next-step';
import type { TurnOffer } from '../../../../src/core/llm/contract';
import { workerFunctionTool } from '../../../../src/core/llm/tool-contract';
import { HANDOFF_TEXTS } from '../../../../src/core/teams/handoffs';
import { testOffer } from '../../../helpers/activity-env';

const spec = (name: string) => ({ name, yamlName: name, description: name, parameters: { type: 'object' }, timeoutMs: 60_000, retries: 2 });
const offer: TurnOffer = testOffer({
  builtins: ['signal'],
  workerTools: [{ definition: workerFunctionTool(spec('read')) }, { definition: workerFunctionTool(spec('write')), gated: true }],
  handoffs: [
    { name: 'transfer_to_billing', target: 'billing', description: 'billing' },
    { name: 'transfer_to_user', target: 'user', description: 'the user' },
  ],
  maxToolRounds: 2,
  maxParallelToolCalls: 4,
});
const at = (over: Partial<TurnSetting> = {}): TurnSetting => ({ agent: 'a', offer, turn: { round: 0 }, textCalls: true, ...over });
const reply = (over: Partial<ModelReply> = {}): ModelReply => ({ text: '', calls: [], finishReason: 'stop', given: () => [], ...over });
const call = (name: string, id = `id_${name}`, args = '{}') => ({ id, name, arguments: args });

describe('after a model turn', () => {
  it('a reply without a call is the final answer', () => {
    const warnings: string[] = [];
    expect(nextStep(at(), reply({ text: 'done' }), {}, warnings)).toEqual({ kind: 'final', text: 'done', finishReason: 'stop' });
    expect(warnings).toEqual([]);
  });

  it("a reply's calls are planned: a built-in, a worker tool, a gated one, an unknown one, and those past the reply's bound", () => {
    const warnings: string[] = [];
    const calls = [call('signal'), call('read'), call('write'), call('nope'), call('read', 'r2'), call('read', 'r3')];
    const next = nextStep(at(), reply({ text: 'working', calls, finishReason: 'tool_calls' }), {}, warnings);
    expect(next).toMatchObject({ kind: 'run_tools', text: 'working', finishReason: 'tool_calls' });
    if (next.kind !== 'run_tools') throw new Error(next.kind);
    expect(next.calls.map((c) => (c.run === 'worker' && c.gated ? 'gated' : c.run))).toEqual(['builtin', 'worker', 'gated', 'unknown', 'past_limit', 'past_limit']);
    expect(answerWithoutRunning(next.calls[3], offer)).toBe(TURN_TEXTS.unknownTool('nope', ['signal', 'read', 'write', 'transfer_to_billing', 'transfer_to_user']));
    expect(answerWithoutRunning(next.calls[4], offer)).toBe(TURN_TEXTS.tooManyCalls(4));
    expect(answerWithoutRunning(next.calls[1], offer)).toBeUndefined();
    expect(warnings).toEqual([TURN_TEXTS.tooManyCallsWarning('a', 6, 4), TURN_TEXTS.unknownToolWarning('a', 'nope')]);
  });

  it('hands off to the first transfer; a second is refused and the reply\'s other calls still run', () => {
    const calls = [call('read'), call('transfer_to_billing', 't1', '{"message":"over to you"}'), call('transfer_to_user', 't2')];
    const next = nextStep(at(), reply({ text: 'passing on', calls }), {}, []);
    expect(next).toMatchObject({ kind: 'hand_off', text: 'passing on', transfer: { tool: 'handoff', target: 'billing', message: 'over to you', refused: ['user'] } });
    if (next.kind !== 'hand_off') throw new Error(next.kind);
    expect(next.calls.map((c) => c.run)).toEqual(['worker', 'transfer', 'transfer']);
    expect(answerWithoutRunning(next.calls[1], offer)).toBe(HANDOFF_TEXTS.transferred('billing'));
    expect(answerWithoutRunning(next.calls[2], offer)).toBe(HANDOFF_TEXTS.oneTransferPerTurn('billing'));
  });

  it('the closing call comes after max_tool_rounds or a refused call; calls asked for on it are ignored, with a warning', () => {
    expect(nextRequest(offer, { round: 1 })).toEqual({});
    expect(nextRequest(offer, { round: 2 })).toEqual({ toolChoice: 'none' });
    expect(afterTools({ round: 0 }, true)).toEqual({ round: 1, closing: true });
    expect(afterTools({ round: 1, closing: true }, false)).toEqual({ round: 2, closing: true });
    expect(nextRequest(offer, { round: 1, closing: true })).toEqual({ toolChoice: 'none' });
    const warnings: string[] = [];
    expect(nextStep(at({ turn: { round: 2 } }), reply({ text: 'last', calls: [call('read')] }), {}, warnings)).toMatchObject({ kind: 'final', text: 'last' });
    expect(warnings).toEqual([TURN_TEXTS.closingCallIgnored('a', 2)]);
  });

  it('tool_choice required holds for the first call only, and a reply that ignores it is asked once to call a tool', () => {
    const required = { ...offer, toolChoice: 'required' as const };
    expect(nextRequest(required, { round: 0 })).toEqual({ toolChoice: 'required' });
    expect(nextRequest(required, { round: 1 })).toEqual({});
    const used: FollowUpsUsed = {};
    const first = nextStep(at({ offer: required }), reply({ text: 'I know.' }), used, []);
    expect(first).toEqual({ kind: 'ask_again', reply: 'I know.', request: REPLY_TEXTS.mustCall(['signal', 'read', 'write', 'transfer_to_billing', 'transfer_to_user']) });
    expect(nextStep(at({ offer: required }), reply({ text: 'Still no.' }), used, [])).toMatchObject({ kind: 'final', text: 'Still no.' });
  });

  it('a call written as the whole reply runs as that call, with an id of its own and marked as text; off, it is the answer', () => {
    const text = '{"name": "write", "arguments": {"path": "a"}}';
    const warnings: string[] = [];
    const next = nextStep(at(), reply({ text }), {}, warnings);
    expect(next).toMatchObject({ kind: 'run_tools', text: '', finishReason: 'tool_calls', calls: [{ id: 'call_0_0', name: 'write', asText: true, run: 'worker', gated: true }] });
    expect(warnings).toEqual([REPLY_TEXTS.ranTextCall('a', 'write')]);
    expect(nextStep(at({ textCalls: false }), reply({ text }), {}, [])).toMatchObject({ kind: 'final', text });
  });

  it('a continued reply ends as the two texts joined; calls from an agent offered nothing are ignored, with a warning', () => {
    const used: FollowUpsUsed = {};
    expect(nextStep(at(), reply({ text: 'cut sho', finishReason: 'length' }), used, [])).toMatchObject({ kind: 'ask_again', request: REPLY_TEXTS.continueCut });
    expect(nextStep(at(), reply({ text: 'rt.' }), used, [])).toEqual({ kind: 'final', text: 'cut short.', finishReason: 'stop' });
    const warnings: string[] = [];
    expect(nextStep(at({ offer: testOffer() }), reply({ text: 'hm', calls: [call('read')] }), {}, warnings)).toMatchObject({ kind: 'final', text: 'hm' });
    expect(warnings).toEqual([TURN_TEXTS.unofferedTools('a')]);
  });
});
