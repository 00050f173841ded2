/**
 * `max_reply_bytes` and `max_event_bytes` (docs/semantics.md, "Bounds on hostile input"): set on the
 * role's `model` or an agent's, the judge's or the selector's, compiled into the model the activity
 * is given, a located error outside 4 KiB..64 MiB, and refused by the worker's check of a graph built
 * by hand past the same bounds.
 */
import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { CONFIG_MESSAGES } from '../../../../src/core/config/messages';
import { checkGraph } from '../../../../src/core/graph/check-graph';
import { REPLY_CAPS } from '../../../../src/core/llm/reply-caps';
import { compileYaml } from '../../../helpers/compile';

const role = (model: string, writer = '') => `name: capped
model: { name: m${model} }
agents:
  writer: { instructions: "Write."${writer} }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 2
`;

describe('reply caps in a role', () => {
  it("compile into each model: the role's, overridden by an agent's own", () => {
    const graph = compileYaml(role(', max_reply_bytes: 2097152, max_event_bytes: 65536', ', model: { max_reply_bytes: 1048576 }'));
    expect(graph.agents.writer.model).toMatchObject({ maxReplyBytes: 1048576, maxEventBytes: 65536 });
    expect(graph.agents.critic.model).toMatchObject({ maxReplyBytes: 2097152, maxEventBytes: 65536 });
    expect(graph.judge.model).toMatchObject({ maxReplyBytes: 2097152 });
    expect(checkGraph(graph)).toEqual([]);
  });

  it('are absent from a model that sets none (the defaults apply)', () => {
    const graph = compileYaml(role(''));
    expect(graph.agents.writer.model).not.toHaveProperty('maxReplyBytes');
    expect(graph.agents.writer.model).not.toHaveProperty('maxEventBytes');
  });

  it.each([
    ['max_reply_bytes: 100', 'model.max_reply_bytes', REPLY_CAPS.maxReplyBytes],
    ['max_reply_bytes: 1e12', 'model.max_reply_bytes', REPLY_CAPS.maxReplyBytes],
    ['max_reply_bytes: 1.5', 'model.max_reply_bytes', REPLY_CAPS.maxReplyBytes],
    ['max_event_bytes: 134217728', 'model.max_event_bytes', REPLY_CAPS.maxEventBytes],
  ])('%s is a located error', (setting, path, max) => {
    const r = loadRoleConfig(role(`, ${setting}`), 'role.yaml');
    expect(r.errors.map(formatIssue)).toEqual([expect.stringMatching(new RegExp(`^role\\.yaml:2:\\d+ ${path.replace('.', '\\.')}: ${CONFIG_MESSAGES.integerBetween(REPLY_CAPS.minBytes, max)}$`))]);
  });

  it('past the bounds in a graph built by hand are refused by the worker', () => {
    const graph = compileYaml(role('')) as unknown as { agents: Record<string, { model: Record<string, unknown> }> };
    graph.agents.writer.model.maxReplyBytes = 1e12;
    graph.agents.critic.model.maxEventBytes = -1;
    const problems = checkGraph(graph as never);
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/agents\.writer\.model\.maxReplyBytes/);
    expect(problems.join('\n')).toMatch(/agents\.critic\.model\.maxEventBytes/);
  });
});
