/**
 * AutoGen's HandoffTermination, SourceMatchTermination and FunctionCallTermination cases
 * (reference/autogen.md §2, cases 1, 2, 16, 17, 19, 29 and 32; teams.md §A.4), ported to troupe's
 * `handoff`, `source_match` and `tool_called`. AutoGen hands a condition the delta of messages since
 * its last call; troupe's conditions read the round's view, so each AutoGen delta becomes the round
 * it describes: a `HandoffMessage` is an entry of `handoffs`, a `ToolCallExecutionEvent` the names
 * in `toolsCalled`, an agent's message its result in `latest`. AutoGen's `reset()` is a new round,
 * whose view starts empty; its `TerminatedException` has no counterpart, since the run ends. Where
 * troupe deliberately differs, the test name says so.
 */
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition, parseConditionList } from '../../../../src/core/conditions/parse';
import type { Condition } from '../../../../src/core/conditions/types';
import { createRunState } from '../../../../src/core/state/state';
import { terminationView } from '../../../../src/core/state/view';
import { completeGraph } from '../../fixtures/drive-machine';
import { recordAll, term, view } from '../../fixtures/termination-view';

/** `T(src, "c")`: a round in which these agents answered. */
const answered = (...agents: string[]) => view({ latest: Object.fromEntries(agents.map((a) => [a, { text: 'Hello', hash: `h-${a}` }])) });

describe('HandoffTermination("target") → handoff: target', () => {
  const target: Condition = { kind: 'handoff', target: 'target' };
  const t = term([target]);

  it('case 1: [] → null; [T(agent,"Hello")] → null; [H(agent→target)] → stop', () => {
    expect(evaluateTermination(t, view())).toBeNull();
    expect(evaluateTermination(t, answered('agent'))).toBeNull();
    expect(evaluateTermination(t, view({ handoffs: [{ from: 'agent', to: 'target' }] }))).toEqual({
      reason: 'handoff',
      reasonText: 'handoff: agent handed off to target',
      priority: 1,
      status: 'completed',
    });
  });

  it('case 2: [H(agent→another)] → null; [T(agent,"Hello"), H(agent→target)] → stop', () => {
    expect(evaluateTermination(t, view({ handoffs: [{ from: 'agent', to: 'another' }] }))).toBeNull();
    const v = view({ ...answered('agent'), messages: 1, handoffs: [{ from: 'agent', to: 'target' }] });
    expect(evaluateTermination(t, v)?.reasonText).toBe('handoff: agent handed off to target');
  });

  it('case 32: the round that handed off to third_agent stops; the next round starts without it and goes on', () => {
    const third: Condition = { kind: 'handoff', target: 'third_agent' };
    expect(conditionHolds(third, view({ handoffs: [{ from: 'first_agent', to: 'third_agent' }] }))).toBe(true);
    const nextRound = view();
    expect(conditionHolds(third, nextRound)).toBe(false);
    expect(conditionHolds(third, view({ handoffs: [{ from: 'first_agent', to: 'second_agent' }] }))).toBe(false);
  });

  it('troupe differs: a handoff to the human is the target user (AutoGen names it, e.g. "human"), and the reason text names both agents', () => {
    expect(parseCondition({ handoff: 'user' }).condition).toEqual({ kind: 'handoff', target: 'user' });
    expect(evaluateTermination(term([{ kind: 'handoff', target: 'user' }]), view({ handoffs: [{ from: 'agent', to: 'user' }] }))?.reasonText).toBe(
      'handoff: agent handed off to user',
    );
  });
});

describe('SourceMatchTermination(["Assistant"]) → source_match: [Assistant]', () => {
  const c: Condition = { kind: 'source_match', sources: ['Assistant'] };
  const t = term([c]);

  it('case 16: [] → null; [T(agent)] → null; [T(agent), T(Assistant)] → stop, "\'Assistant\' answered"', () => {
    expect(evaluateTermination(t, view())).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['agent', 'Hello']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['agent', 'Hello'], ['Assistant', 'Hello'], ['other', 'Hello']]))).toEqual({
      reason: 'source_match',
      reasonText: "source_match: 'Assistant' answered",
      priority: 1,
      status: 'completed',
    });
  });

  it('case 16: after it fired, a new round (AutoGen reset) starts not holding', () => {
    expect(conditionHolds(c, view())).toBe(false);
  });

  it('case 29: SourceMatchTermination(["A"]) in a graph of [task, A] → "\'A\' answered"', () => {
    const a = term([{ kind: 'source_match', sources: ['A'] }]);
    expect(evaluateTermination(a, recordAll(a, [['A', 'done']]))?.reasonText).toBe("source_match: 'A' answered");
  });

  it('troupe differs: the task is never a source (AutoGen matches task messages too), so a round that only has its task does not hold', () => {
    const graph = completeGraph({ edges: [{ from: 'parent', to: 'Assistant', exit: false }], termination: t });
    const taskOnly = terminationView(createRunState(graph, 'Assistant, please answer', 'wf', 0), 0);
    expect(evaluateTermination(t, taskOnly)).toBeNull();
  });
});

describe('FunctionCallTermination("test_function") → tool_called: test_function', () => {
  const t = term([{ kind: 'tool_called', names: ['test_function'] }]);

  it('case 17: [] → null; [T] → null; [T, X(assistant,[])] → null', () => {
    expect(evaluateTermination(t, view())).toBeNull();
    expect(evaluateTermination(t, answered('assistant'))).toBeNull();
    expect(evaluateTermination(t, view({ ...answered('assistant'), toolsCalled: [] }))).toBeNull();
  });

  it('case 17: [T, X(assistant,["test_function"])] → stop; [T, X(assistant,["another_function"])] → null', () => {
    expect(evaluateTermination(t, view({ ...answered('assistant'), toolsCalled: ['test_function'] }))).toEqual({
      reason: 'tool_called',
      reasonText: "tool_called: tool 'test_function' was executed",
      priority: 1,
      status: 'completed',
    });
    expect(evaluateTermination(t, view({ ...answered('assistant'), toolsCalled: ['another_function'] }))).toBeNull();
  });

  it('teams.md §A.4: a call that ran and failed (is_error) still counts', () => {
    // toolsCalled lists every tool that ran this round, whatever its outcome
    expect(conditionHolds({ kind: 'tool_called', names: ['test_function'] }, view({ toolsCalled: ['test_function'] }))).toBe(true);
  });

  it('troupe adds: several names, any of which ends the round', () => {
    const either = term([{ kind: 'tool_called', names: ['test_function', 'another_function'] }]);
    expect(evaluateTermination(either, view({ toolsCalled: ['another_function'] }))?.reasonText).toBe(
      "tool_called: tool 'another_function' was executed",
    );
  });
});

describe('case 19: declarative configs', () => {
  it('(Max(5) | TextMention("stop")) & (TokenUsage(100,50,100) | Handoff("human")) compiles to an all_of of two any_of', () => {
    const r = parseConditionList([
      {
        all_of: [
          { any_of: [{ max_messages: 5 }, { text_mention: 'stop' }] },
          { any_of: [{ token_usage: { max_total_tokens: 100, max_prompt_tokens: 50, max_completion_tokens: 100 } }, { handoff: 'human' }] },
        ],
      },
    ]);
    expect(r.issues).toEqual([]);
    const [all] = r.conditions;
    expect(all.kind).toBe('all_of');
    expect(all.kind === 'all_of' && all.items.map((i) => i.kind)).toEqual(['any_of', 'any_of']);
    expect(r.agents.map((a) => a.agent)).toEqual(['human']);
  });

  it('leaf configs {target: "human"} and {sources: ["human"]} compile to handoff and source_match', () => {
    expect(parseCondition({ handoff: 'human' }).condition).toEqual({ kind: 'handoff', target: 'human' });
    expect(parseCondition({ source_match: ['human'] }).condition).toEqual({ kind: 'source_match', sources: ['human'] });
  });
});
