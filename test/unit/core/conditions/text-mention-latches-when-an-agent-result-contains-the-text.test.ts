/** The `text_mention` condition plugin (core/conditions/builtin/text-mention.ts). */
import { latchKey, textMention } from '../../../../src/core/conditions/builtin/text-mention';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { record, recordAll, term, view } from '../../fixtures/termination-view';

const mention = (text: string, sources?: string[]): Extract<Condition, { kind: 'text_mention' }> =>
  sources ? { kind: 'text_mention', text, sources } : { kind: 'text_mention', text };

describe('text_mention (AutoGen TextMentionTermination, cases 9, 10, 33)', () => {
  const stop: Condition = { kind: 'text_mention', text: 'stop' };
  const t = term([stop]);

  it('latches when an agent result contains the text', () => {
    const hello = recordAll(t, [['agent', 'Hello']]);
    expect(evaluateTermination(t, hello)).toBeNull();
    expect(evaluateTermination(t, record(hello, t, 'agent', 'please stop now'))).toEqual({
      reason: 'text_mention',
      reasonText: 'text_mention: "stop" in agent',
      priority: 1,
      status: 'completed',
    });
  });

  it('is case-sensitive', () => {
    expect(evaluateTermination(t, recordAll(t, [['agent', 'STOP']]))).toBeNull();
  });

  it('only agent results latch it, so a task quoting the text does not stop the round (AutoGen #6826)', () => {
    const mention = term([{ kind: 'text_mention', text: 'TERMINATE' }]);
    expect(evaluateTermination(mention, view())).toBeNull();
    const afterFirst = recordAll(mention, [['poet', 'Here is the poem about roses']]);
    expect(evaluateTermination(mention, afterFirst)).toBeNull();
    expect(evaluateTermination(mention, record(afterFirst, mention, 'poet', 'TERMINATE'))?.reason).toBe('text_mention');
  });

  it('with sources, only results of those agents latch it', () => {
    const fromCritic = term([{ kind: 'text_mention', text: 'APPROVE', sources: ['critic'] }]);
    const writerSaid = recordAll(fromCritic, [['writer', 'I APPROVE of myself']]);
    expect(evaluateTermination(fromCritic, writerSaid)).toBeNull();
    expect(evaluateTermination(fromCritic, record(writerSaid, fromCritic, 'critic', 'APPROVE'))?.reasonText).toBe(
      'text_mention: "APPROVE" in critic',
    );
  });

  it('stays latched for the round after the agent moves on, naming no agent then', () => {
    const v = recordAll(t, [['agent', 'stop'], ['agent', 'carry on']]);
    expect(evaluateTermination(t, v)?.reasonText).toBe('text_mention: "stop" mentioned this round');
  });
});

describe('the text_mention plugin', () => {
  it('is the registered text_mention condition', () => {
    expect(getConditionPlugin('text_mention')).toBe(textMention);
  });

  it('compiles the text, or the object form with its sources (trimmed), and names the sources it reads', () => {
    expect(parseCondition({ text_mention: 'TERMINATE' }).condition).toEqual(mention('TERMINATE'));
    const r = parseCondition({ text_mention: { text: 'DONE', sources: [' critic ', 'editor'] } });
    expect(r.condition).toEqual(mention('DONE', ['critic', 'editor']));
    expect(r.agents.map((a) => [a.agent, a.path])).toEqual([
      ['critic', ['text_mention', 'sources', 0]],
      ['editor', ['text_mention', 'sources', 1]],
    ]);
    expect(parseCondition({ text_mention: { text: 'DONE', sources: [] } }).condition).toBeUndefined();
  });

  it('keys its latch by text and the set of sources', () => {
    expect(latchKey(mention('A', ['x', 'y']))).toBe(latchKey(mention('A', ['y', 'x'])));
    expect(latchKey(mention('A'))).not.toBe(latchKey(mention('A', ['x'])));
    expect(latchKey(mention('A'))).not.toBe(latchKey(mention('B')));
  });

  it('is described in prompts by its text, and labelled in pictures with its sources', () => {
    expect(describeCondition(mention('stop'))).toBe('"stop" mentioned');
    expect(describeGuard(mention('stop'))).toBe('"stop" mentioned');
    expect(describeGuard(mention('stop', ['critic', 'writer']))).toBe('"stop" mentioned by critic, writer');
  });
});
