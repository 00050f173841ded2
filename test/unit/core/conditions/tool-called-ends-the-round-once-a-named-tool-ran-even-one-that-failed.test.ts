/** The `tool_called` condition plugin (core/conditions/builtin/tool-called.ts): docs/semantics.md "Termination conditions", AutoGen FunctionCallTermination. */
import { toolCalled } from '../../../../src/core/conditions/builtin/tool-called';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { hintFor, priorityOf, statusForReason } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

const called = (...names: string[]): Condition => ({ kind: 'tool_called', names });

describe('tool_called holds once a tool of one of its names ran this round', () => {
  it('stops the round completed with reason tool_called, naming the tool', () => {
    expect(evaluateTermination(term([called('publish')]), view({ toolsCalled: ['fetch_page', 'publish'] }))).toEqual({
      reason: 'tool_called',
      reasonText: "tool_called: tool 'publish' was executed",
      priority: 1,
      status: 'completed',
    });
  });

  it('does not hold when no tool ran, or only others did', () => {
    expect(conditionHolds(called('publish'), view())).toBe(false);
    expect(conditionHolds(called('publish'), view({ toolsCalled: [] }))).toBe(false);
    expect(conditionHolds(called('publish'), view({ toolsCalled: ['fetch_page', 'publish_draft'] }))).toBe(false);
  });

  it('counts a call that ran and failed: the view lists every tool that ran, whatever its outcome (as AutoGen)', () => {
    // the run lists a tool in toolsCalled when its call ran, failed or not; the condition reads nothing else
    expect(conditionHolds(called('publish'), view({ toolsCalled: ['publish'] }))).toBe(true);
  });

  it('matches names exactly as written in the agent’s tools list, goal and signal included', () => {
    expect(conditionHolds(called('files.write_file'), view({ toolsCalled: ['files.write_file'] }))).toBe(true);
    expect(conditionHolds(called('files.write_file'), view({ toolsCalled: ['files.read_file'] }))).toBe(false);
    expect(conditionHolds(called('Publish'), view({ toolsCalled: ['publish'] }))).toBe(false);
    expect(conditionHolds(called('goal'), view({ toolsCalled: ['goal'] }))).toBe(true);
    expect(conditionHolds(called('signal'), view({ toolsCalled: ['signal'] }))).toBe(true);
  });

  it('with several names, holds on any, and names the first listed that ran', () => {
    const v = view({ toolsCalled: ['archive', 'publish'] });
    expect(evaluateTermination(term([called('publish', 'archive')]), v)?.reasonText).toBe("tool_called: tool 'publish' was executed");
    expect(evaluateTermination(term([called('delete', 'archive')]), v)?.reasonText).toBe("tool_called: tool 'archive' was executed");
  });
});

describe('the tool_called plugin', () => {
  it('is the registered tool_called condition, reporting tool_called as completed at priority 1', () => {
    expect(getConditionPlugin('tool_called')).toBe(toolCalled);
    expect(statusForReason('tool_called')).toBe('completed');
    expect(priorityOf('tool_called')).toBe(1);
    expect(hintFor('tool_called')).toBeUndefined();
  });

  it('compiles one name or a list, trimmed, and names no agent', () => {
    expect(parseCondition({ tool_called: ' publish ' })).toEqual({ condition: called('publish'), issues: [], agents: [] });
    expect(parseCondition({ tool_called: ['publish', 'files.write_file'] }).condition).toEqual(called('publish', 'files.write_file'));
  });

  it('refuses names that are not non-empty strings, each located', () => {
    const issues = (value: unknown) => parseCondition({ tool_called: value }).issues;
    expect(issues('')).toEqual([{ path: ['tool_called'], message: 'must be a non-empty string' }]);
    expect(issues([])).toEqual([{ path: ['tool_called'], message: 'must not be empty' }]);
    expect(issues(['publish', ''])).toEqual([{ path: ['tool_called', 1], message: 'must be a non-empty string' }]);
    expect(issues([true])).toEqual([{ path: ['tool_called', 0], message: 'expected string, got boolean' }]);
    expect(issues(5)).toEqual([{ path: ['tool_called'], message: 'expected string or array, got number' }]);
    expect(issues({ name: 'publish' })).toEqual([{ path: ['tool_called'], message: 'expected string or array, got object' }]);
  });

  it('is described in prompts and labelled in pictures by its names', () => {
    expect(describeCondition(called('publish'))).toBe('tool "publish" called');
    expect(describeCondition(called('publish', 'archive'))).toBe('tool "publish" or "archive" called');
    expect(describeGuard(called('publish', 'archive'))).toBe('publish or archive called');
  });

  it('in a role file, an invalid name is a located error', () => {
    const text = `name: publisher
agents:
  writer:
    instructions: Write, then publish.
collaboration:
  topology: pipeline
  agents: [writer]
  termination:
    any_of:
      - tool_called: [publish, ""]
`;
    expect(loadRoleConfig(text, 'role.yaml').errors.map(formatIssue)).toEqual([
      'role.yaml:10:32 collaboration.termination.any_of[0].tool_called[1]: must be a non-empty string',
    ]);
  });
});
