/**
 * The tool calls of one model reply run at the same time (each its own activity), and their results
 * go back to the model in the order of the calls.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

describe('tool calls of one reply', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());

  test('two calls are in flight together at the tool, and their results come back in call order', async () => {
    const dir = t.folder('probe');
    t.h.stub.script('scout', [
      { toolCalls: [{ name: 'probe', arguments: { dir, name: 'left' } }, { name: 'probe', arguments: { dir, name: 'right' } }] },
      { text: 'both probes answered' },
    ]);
    const r = await t.h.run(`
name: concurrent-tools
agents:
  scout: { instructions: "Probe.", tools: [probe] }
collaboration:
  topology: pipeline
  agents: [scout]
`);
    expect(r).toMatchObject({ status: 'completed', finalText: 'both probes answered' });
    expect(fs.existsSync(path.join(dir, 'left.saw-sibling'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'right.saw-sibling'))).toBe(true);
    const answers = t.h.stub.requestsFor('scout')[1].messages.slice(-2);
    expect(answers.map((m) => m.content)).toEqual(['left: saw 2 calls in flight', 'right: saw 2 calls in flight']);
  });
});
