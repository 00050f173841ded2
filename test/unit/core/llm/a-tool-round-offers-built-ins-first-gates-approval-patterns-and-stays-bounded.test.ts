import { checkBudget, emptyLedger, takeToolCall, toolCallAllowed } from '../../../../src/core/budgets/ledger';
import type { LoopMessage } from '../../../../src/core/llm/tool-contract';
import { needsApproval, shrinkEarlierToolResults, TOOL_CALL_LIMITS } from '../../../../src/core/llm/tool-calls';
import { normalizeCallIds } from '../../../../src/core/llm/next-step';
import { offeredTools } from '../../../../src/core/llm/next-step';
import { workerFunctionTool } from '../../../../src/core/llm/tool-contract';
import { brief } from '../../../../src/core/text/format';
import { testOffer } from '../../../helpers/activity-env';
import { offlineToolAnswer, offlineToolCalls, type OfflineToolRequest } from '../../../../src/dev/offline-tools';

const def = (name: string, yamlName = name) => ({ name, yamlName, description: `${name} tool`, parameters: { type: 'object' }, timeoutMs: 60_000, retries: 2 });

describe('the tools a model is offered', () => {
  it('built-ins the agent lists first, then its worker tools; strict only when asked', () => {
    const workerTools = [def('files__write_file', 'files.write_file'), { ...def('sum'), strict: true }].map((d) => ({ definition: workerFunctionTool(d) }));
    const tools = offeredTools(testOffer({ builtins: ['signal'], workerTools }));
    expect(tools.map((t) => t.function.name)).toEqual(['signal', 'files__write_file', 'sum']);
    expect(tools[1].function).not.toHaveProperty('strict');
    expect(tools[2].function.strict).toBe(true);
  });
});

describe('approval patterns', () => {
  it('gate the calls whose role-file name a pattern matches (the globs: tool-name-globs-*.test.ts)', () => {
    expect(needsApproval(undefined, 'x')).toBe(false);
    expect(needsApproval(['x', 'files.*'], 'files.move_file')).toBe(true);
  });
});

describe('call ids', () => {
  it('a missing or repeated id becomes call_<round>_<index>; others are kept', () => {
    const calls = [
      { id: 'a', name: 't', arguments: '{}' },
      { id: '', name: 't', arguments: '{}' },
      { id: 'a', name: 't', arguments: '{}' },
    ];
    expect(normalizeCallIds(calls, 3).map((c) => c.id)).toEqual(['a', 'call_3_1', 'call_3_2']);
  });
});

describe('keeping a dispatch bounded', () => {
  const big = 'z'.repeat(300 * 1024);
  const round = (i: number, content: string): LoopMessage[] => [
    { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 't', arguments: '{}' }] },
    { role: 'tool', toolCallId: `c${i}`, content },
  ];
  it('under 512 KiB nothing changes', () => {
    const m: LoopMessage[] = [{ role: 'user', content: 'task' }, ...round(1, 'small')];
    expect(shrinkEarlierToolResults(m)).toEqual(m);
  });
  it('over 512 KiB the earlier rounds shrink to 1 KiB with a marker; the latest round stays whole', () => {
    const m: LoopMessage[] = [{ role: 'user', content: 'task' }, ...round(1, big), ...round(2, big)];
    const out = shrinkEarlierToolResults(m);
    const earlier = out[2] as { content: string };
    expect(Buffer.byteLength(earlier.content)).toBeLessThanOrEqual(TOOL_CALL_LIMITS.shrunkResultBytes);
    expect(earlier.content).toMatch(/\[troupe: truncated \d+ bytes\]$/);
    expect((out[4] as { content: string }).content).toBe(big);
  });
  it('brief collapses whitespace and cuts with an ellipsis', () => {
    expect(brief('a\n  b')).toBe('a b');
    expect(brief('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('the tool budget', () => {
  it('counts calls by agent and tool, refuses past the limit, and then stops the run with the figures', () => {
    const ledger = emptyLedger();
    const budget = { maxToolCalls: 2 };
    expect(toolCallAllowed(ledger, budget)).toBe(true);
    expect(takeToolCall(ledger, budget, 'a', 'files.write_file')).toBe(true);
    expect(takeToolCall(ledger, budget, 'b', 'files.write_file')).toBe(true);
    expect(checkBudget(budget, ledger, 0)).toBeNull();
    expect(toolCallAllowed(ledger, budget)).toBe(false);
    expect(takeToolCall(ledger, budget, 'a', 'shout')).toBe(false);
    expect(ledger.toolCalls).toEqual({ total: 2, byAgent: { a: 1, b: 1 }, byTool: { 'files.write_file': 2 }, refused: 1, refusedTool: 'shout' });
    expect(checkBudget(budget, ledger, 0)).toMatchObject({
      reason: 'tool_budget_exceeded',
      reasonText: 'tool call budget 2 reached (2 tool calls made; a call of shout was refused)',
    });
  });
  it('without a limit every call is taken', () => {
    const ledger = emptyLedger();
    for (let i = 0; i < 5; i++) expect(takeToolCall(ledger, {}, 'a', 't')).toBe(true);
    expect(ledger.toolCalls?.total).toBe(5);
    expect(emptyLedger().toolCalls).toBeUndefined();
  });
});

describe('the offline model with tools', () => {
  const tools = [
    { name: 'files__list_allowed_directories' },
    { name: 'files__write_file' },
    { name: 'files__read_text_file' },
    { name: 'word_count', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ];
  const req = (rounds: OfflineToolRequest['rounds'], toolChoice?: string): OfflineToolRequest => ({ agent: 'r', topic: 'why', tools, rounds, ...(toolChoice ? { toolChoice } : {}) });

  it('lists the folder, then writes notes and counts words in one reply, then reads them back, then answers', () => {
    expect(offlineToolCalls(req([]))).toEqual([{ name: 'files__list_allowed_directories', arguments: {} }]);
    const listed = [{ name: 'files__list_allowed_directories', arguments: '{}', result: 'Allowed directories:\n/tmp/ws' }];
    const second = offlineToolCalls(req([listed]))!;
    expect(second.map((c) => c.name)).toEqual(['files__write_file', 'word_count']);
    expect(second[0].arguments.path).toBe('/tmp/ws/r-notes.md');
    expect(typeof second[1].arguments.text).toBe('string');
    const wrote = second.map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments), result: 'ok' }));
    expect(offlineToolCalls(req([listed, wrote]))).toEqual([{ name: 'files__read_text_file', arguments: { path: '/tmp/ws/r-notes.md' } }]);
    const read = [{ name: 'files__read_text_file', arguments: '{}', result: '# Notes by r' }];
    expect(offlineToolCalls(req([listed, wrote, read]))).toBeUndefined();
    expect(offlineToolAnswer(req([listed, wrote, read]))).toContain('files__read_text_file: # Notes by r');
  });

  it('answers in text on the closing call, and with only goal/signal offered', () => {
    expect(offlineToolCalls(req([], 'none'))).toBeUndefined();
    expect(offlineToolCalls({ agent: 'r', topic: 't', tools: [{ name: 'goal' }, { name: 'signal' }], rounds: [] })).toBeUndefined();
    expect(offlineToolAnswer(req([]))).toBeUndefined();
  });
});
