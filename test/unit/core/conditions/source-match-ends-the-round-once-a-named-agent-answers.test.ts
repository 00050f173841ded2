/** The `source_match` condition plugin (core/conditions/builtin/source-match.ts): docs/semantics.md "Termination conditions", AutoGen SourceMatchTermination. */
import { sourceMatch } from '../../../../src/core/conditions/builtin/source-match';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { hintFor, priorityOf, statusForReason } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { recordAll, term, view } from '../../fixtures/termination-view';

const from = (...sources: string[]): Condition => ({ kind: 'source_match', sources });
const answered = (...agents: string[]) => view({ latest: Object.fromEntries(agents.map((a) => [a, { text: `${a} says`, hash: `h-${a}` }])) });

describe('source_match holds once one of its agents produced a result this round', () => {
  it('stops the round completed with reason source_match, naming the agent that answered', () => {
    expect(evaluateTermination(term([from('critic')]), answered('writer', 'critic'))).toEqual({
      reason: 'source_match',
      reasonText: "source_match: 'critic' answered",
      priority: 1,
      status: 'completed',
    });
  });

  it('does not hold before any of its agents answered', () => {
    expect(conditionHolds(from('critic'), view())).toBe(false);
    expect(conditionHolds(from('critic', 'editor'), answered('writer'))).toBe(false);
  });

  it('names the first listed agent that answered, in list order, not in answer order', () => {
    const v = answered('writer', 'editor', 'critic');
    expect(evaluateTermination(term([from('critic', 'editor')]), v)?.reasonText).toBe("source_match: 'critic' answered");
    expect(evaluateTermination(term([from('editor', 'critic')]), v)?.reasonText).toBe("source_match: 'editor' answered");
    expect(evaluateTermination(term([from('nobody', 'editor')]), v)?.reasonText).toBe("source_match: 'editor' answered");
  });

  it('holds on results recorded as the workflow records them, whatever the text (an empty reply too)', () => {
    const t = term([from('critic')]);
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft 1']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft 1'], ['critic', '']]))?.reasonText).toBe("source_match: 'critic' answered");
  });

  it('reads only agents’ own keys, so an agent called like an object property does not hold by accident', () => {
    expect(conditionHolds(from('constructor'), view())).toBe(false);
    expect(conditionHolds(from('toString'), answered('writer'))).toBe(false);
  });
});

describe('the source_match plugin', () => {
  it('is the registered source_match condition, reporting source_match as completed at priority 1', () => {
    expect(getConditionPlugin('source_match')).toBe(sourceMatch);
    expect(statusForReason('source_match')).toBe('completed');
    expect(priorityOf('source_match')).toBe(1);
    expect(hintFor('source_match')).toBeUndefined();
  });

  it('compiles one agent or a list, trimmed, and names each agent where it is written', () => {
    expect(parseCondition({ source_match: ' critic ' })).toEqual({
      condition: from('critic'),
      issues: [],
      agents: [{ kind: 'source_match', agent: 'critic', path: ['source_match'], item: [] }],
    });
    const r = parseCondition({ source_match: ['critic', ' editor'] });
    expect(r.condition).toEqual(from('critic', 'editor'));
    expect(r.agents.map((a) => [a.agent, a.path])).toEqual([
      ['critic', ['source_match', 0]],
      ['editor', ['source_match', 1]],
    ]);
  });

  it('refuses an empty list, an empty name and any other value, each located', () => {
    const issues = (value: unknown) => parseCondition({ source_match: value }).issues;
    expect(issues([])).toEqual([{ path: ['source_match'], message: 'must not be empty' }]);
    expect(issues('')).toEqual([{ path: ['source_match'], message: 'must be a non-empty string' }]);
    expect(issues(['critic', ' '])).toEqual([{ path: ['source_match', 1], message: 'must be a non-empty string' }]);
    expect(issues(['critic', 7])).toEqual([{ path: ['source_match', 1], message: 'expected string, got number' }]);
    expect(issues(7)).toEqual([{ path: ['source_match'], message: 'expected string or array, got number' }]);
    expect(issues({ sources: ['critic'] })).toEqual([{ path: ['source_match'], message: 'expected string or array, got object' }]);
  });

  it('still names the valid agents of an invalid list, so an unknown one is reported beside the other errors', () => {
    expect(parseCondition({ source_match: ['critc', 7] }).agents.map((a) => [a.agent, a.path])).toEqual([['critc', ['source_match', 0]]]);
  });

  it('is described in prompts and labelled in pictures by its agents', () => {
    expect(describeCondition(from('critic'))).toBe('Critic answers');
    expect(describeCondition(from('critic', 'editor'))).toBe('Critic or Editor answers');
    expect(describeGuard(from('critic', 'editor'))).toBe('critic or editor answered');
  });
});

describe('a role file whose source_match condition names agents', () => {
  const roleWith = (value: string) => `name: review
agents:
  writer:
    instructions: Write.
  critic:
    instructions: Critique.
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
  termination:
    any_of:
      - source_match: ${value}
`;
  const located = (text: string) => loadRoleConfig(text, 'role.yaml').errors.map(formatIssue);

  it('reports each unknown agent at its name, with a did-you-mean', () => {
    expect(located(roleWith('critc'))).toEqual([
      'role.yaml:13:23 collaboration.termination.any_of[0].source_match: termination source_match references unknown agent "critc" (did you mean "critic"?)',
    ]);
    expect(located(roleWith('[writer, critc]'))).toEqual([
      'role.yaml:13:32 collaboration.termination.any_of[0].source_match[1]: termination source_match references unknown agent "critc" (did you mean "critic"?)',
    ]);
  });

  it('does not take the user for an agent: the task never answers', () => {
    expect(located(roleWith('user'))).toEqual([
      'role.yaml:13:23 collaboration.termination.any_of[0].source_match: termination source_match references unknown agent "user"',
    ]);
  });

  it('accepts declared agents', () => {
    expect(located(roleWith('[critic, writer]'))).toEqual([]);
  });
});
