/**
 * Every way a tool call can go wrong comes back to the model as text and the loop goes on: arguments
 * that fail a zod schema (one line per error; the corrected call succeeds), a tool that throws, a
 * tool the agent was not offered. A 200 KiB result is cut to 64 KiB with a marker and a warning. A
 * tool that throws `ToolFatalError` ends the run `failed/fatal_error` instead.
 */
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const ROLE = (tools: string) => `
name: tool-errors
agents:
  maker: { instructions: "Use your tools.", tools: [${tools}] }
collaboration:
  topology: pipeline
  agents: [maker]
`;

describe('tool errors are answers, not failures', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test('invalid arguments: one line per error reaches the model, and its corrected call succeeds', async () => {
    t.h.stub.script('maker', [
      { toolCalls: [{ name: 'shout', arguments: { text: '', times: 9 } }] },
      { toolCalls: [{ name: 'shout', arguments: { text: 'hi', times: 2 } }] },
      { text: 'shouted' },
    ]);
    const r = await t.h.run(ROLE('shout'));
    expect(r).toMatchObject({ status: 'completed', finalText: 'shouted' });
    const [, second, third] = t.h.stub.requestsFor('maker');
    const firstAnswer = second.messages.at(-1)!.content;
    const [header, ...lines] = firstAnswer.split('\n');
    expect(header).toBe("Error: invalid arguments for tool 'shout':");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\/text: /);
    expect(lines[1]).toMatch(/^\/times: /);
    expect(third.messages.at(-1)).toMatchObject({ role: 'tool', content: 'HI HI' });
  });

  test('a tool that throws, and a tool the agent was not offered, are answered with an error and the loop goes on', async () => {
    t.h.stub.script('maker', [
      { toolCalls: [{ name: 'flaky_disk', arguments: {} }, { name: 'revoke', arguments: {} }] },
      { text: 'gave up politely' },
    ]);
    const r = await t.h.run(ROLE('flaky_disk'));
    expect(r).toMatchObject({ status: 'completed', finalText: 'gave up politely' });
    const answers = t.h.stub.requestsFor('maker')[1].messages.slice(-2).map((m) => m.content);
    expect(answers[0]).toContain('the disk is full');
    expect(answers[1]).toBe("Error: unknown tool 'revoke'. Available tools: flaky_disk.");
    expect(r.warnings.some((w) => w.includes('flaky_disk') && w.includes('the disk is full'))).toBe(true);
  });

  test('a 200 KiB result is cut to 64 KiB with the marker, and a warning says so', async () => {
    t.h.stub.script('maker', [{ toolCalls: [{ name: 'big_text', arguments: { kib: 200 } }] }, { text: 'read it' }]);
    const r = await t.h.run(ROLE('big_text'));
    const answer = t.h.stub.requestsFor('maker')[1].messages.at(-1)!.content;
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(64 * 1024);
    expect(answer).toMatch(/\[troupe: truncated \d+ bytes\]$/);
    expect(r.warnings.some((w) => w.includes('big_text') && w.includes('64 KiB'))).toBe(true);
  });

  test('ToolFatalError ends the run failed/fatal_error with the tool message', async () => {
    t.h.stub.script('maker', [{ toolCalls: [{ name: 'revoke', arguments: {} }] }, { text: 'never sent' }]);
    const r = await t.h.run(ROLE('revoke'));
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(r.reasonText).toContain('credentials revoked');
    expect(t.h.stub.hits('maker')).toBe(1);
  });
});
