/**
 * `budget.max_tool_calls` is taken before every tool call: a call past it is not run, the model gets
 * an error saying so and one last answer without tools, and the run ends
 * `budget_exceeded/tool_budget_exceeded` — in a one-agent pipeline too, where the agent exits on the
 * same wave (troupe 0.2 let that exit hide the refusal: `completed/exit`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

describe('the tool budget', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());

  test('max_tool_calls: 2 → the third call is refused and the run ends tool_budget_exceeded', async () => {
    const file = path.join(t.folder('budget'), 'log.txt');
    const append = (line: string) => ({ name: 'append_line', arguments: { file, line } });
    t.h.stub.script('logger', [
      { toolCalls: [append('one'), append('two')] },
      { toolCalls: [append('three')] },
      { text: 'stopped as asked' },
    ]);
    const r = await t.h.run(`
name: tool-budget
agents:
  logger: { instructions: "Log.", tools: [append_line] }
collaboration:
  topology: review-loop
  agents: [logger]
  max_iterations: 5
budget:
  max_tool_calls: 2
`);
    expect(r).toMatchObject({ status: 'budget_exceeded', reason: 'tool_budget_exceeded', steps: 1 });
    expect(r.reasonText).toBe('tool call budget 2 reached (2 tool calls made; a call of append_line was refused)');
    expect(fs.readFileSync(file, 'utf8')).toBe('one\ntwo\n');
    const requests = t.h.stub.requestsFor('logger');
    expect(requests).toHaveLength(3);
    expect(requests[2].messages.at(-1)!.content).toContain('tool call budget (2 calls) is used up');
    expect(requests[2].body.tool_choice).toBe('none');
    expect(r.usage.toolCalls).toMatchObject({ total: 2, refused: 1 });
  });

  test('a one-agent pipeline whose agent exits on the wave of the refusal still ends tool_budget_exceeded', async () => {
    const file = path.join(t.folder('budget-solo'), 'log.txt');
    const append = (line: string) => ({ name: 'append_line', arguments: { file, line } });
    t.h.stub.script('solo', [{ toolCalls: [append('one'), append('two')] }, { text: 'wrote what I could' }]);
    const r = await t.h.run(`
name: tool-budget-solo
agents:
  solo: { instructions: "Log.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [solo]
budget:
  max_tool_calls: 1
`);
    expect(r).toMatchObject({ status: 'budget_exceeded', reason: 'tool_budget_exceeded', finalText: 'wrote what I could' });
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
  });
});
