import {
  DEFAULT_RESERVE_TOKENS,
  estimateMessagesTokens,
  INPUT_CAP_BYTES,
  needsCompaction,
  planContext,
} from '../../../../src/core/prompts/bounds';
import { buildAgentMessages, type AgentPromptInput } from '../../../../src/core/prompts/build';
import { graphOf, promptInput, topologyEdges } from './prompts-fixtures';

const reviewLoop = graphOf({
  name: 'essay-review',
  topology: 'review-loop',
  instructions: { writer: 'You write.', critic: 'You critique.' },
  edges: topologyEdges('review-loop', ['writer', 'critic']),
  maxIterations: 5,
});
const roundRobin = graphOf({
  name: 'chat',
  topology: 'round-robin',
  instructions: { a: 'A.', b: 'B.', c: 'C.' },
  edges: topologyEdges('round-robin', ['a', 'b', 'c']),
  context: 'thread',
  maxIterations: 5,
});

const tokens = (input: AgentPromptInput): number => estimateMessagesTokens(buildAgentMessages(input));
const RESERVE = 500;

const o1 = `draft one ${'a'.repeat(2000)}`;
const o2 = `draft two ${'b'.repeat(2000)}`;
const writer = promptInput(reviewLoop, 'writer', {
  ownRecent: [o1, o2],
  triggers: [{ from: 'critic', text: `score: 40 ${'c'.repeat(400)}` }],
});
const minimumTokens = tokens({ ...writer, ownRecent: [] });

describe('planContext with a context window (inbox)', () => {
  test('a prompt that fits is left whole, with no overflow and no compaction', () => {
    const plan = planContext(writer, tokens(writer) + RESERVE, RESERVE);
    expect(plan).toMatchObject({ fits: true, overflow: [], estimatedTokens: tokens(writer) });
    expect(plan.input.ownRecent).toEqual([o1, o2]);
    expect(needsCompaction(plan)).toBe(false);
  });

  test('a plan carries the messages of its input, built once, and counts them as a plan without a window does', () => {
    for (const plan of [planContext(writer, tokens(writer) + RESERVE, RESERVE), planContext(writer)]) {
      expect(plan.messages).toEqual(buildAgentMessages(plan.input));
      expect(plan.estimatedTokens).toBe(estimateMessagesTokens(plan.messages));
      expect(plan.bytes).toBe(plan.messages.reduce((sum, m) => sum + Buffer.byteLength(m.content), 0));
    }
  });

  test('the oldest own result is dropped first, and returned as "writer: text" for compaction', () => {
    const window = tokens({ ...writer, ownRecent: [o2] }) + RESERVE;
    const plan = planContext(writer, window, RESERVE);
    expect(plan.input.ownRecent).toEqual([o2]);
    expect(plan.overflow).toEqual([`writer: ${o1}`]);
    expect(plan.dropped).toEqual({ ownRecent: 1, thread: 0 });
    expect(plan.fits).toBe(true);
    expect(plan.estimatedTokens).toBeLessThanOrEqual(window - RESERVE);
    expect(needsCompaction(plan)).toBe(true);
  });

  test('one token short of the newest result drops both, oldest first', () => {
    const window = tokens({ ...writer, ownRecent: [o2] }) + RESERVE - 1;
    const plan = planContext(writer, window, RESERVE);
    expect(plan.overflow).toEqual([`writer: ${o1}`, `writer: ${o2}`]);
    expect(plan.input.ownRecent).toEqual([]);
    expect(plan.input.triggers).toEqual(writer.triggers);
    expect(plan.fits).toBe(true);
    expect(plan.estimatedTokens).toBe(minimumTokens);
  });

  test('fits=false when even instructions, task and triggers exceed the window; triggers are never dropped', () => {
    const plan = planContext(writer, minimumTokens + RESERVE - 1, RESERVE);
    expect(plan.fits).toBe(false);
    expect(plan.overflow).toEqual([`writer: ${o1}`, `writer: ${o2}`]);
    expect(plan.input.triggers).toEqual(writer.triggers);
    expect(plan.estimatedTokens).toBe(minimumTokens);
  });

  test('the reserve defaults to 1024 tokens (the model max_tokens when unset)', () => {
    expect(planContext(writer, 100000).budgetTokens).toBe(100000 - DEFAULT_RESERVE_TOKENS);
    expect(planContext(writer, minimumTokens + DEFAULT_RESERVE_TOKENS).fits).toBe(true);
    expect(planContext(writer, minimumTokens + DEFAULT_RESERVE_TOKENS - 1).fits).toBe(false);
  });
});

describe('planContext with a context window (thread)', () => {
  const thread = Array.from({ length: 8 }, (_, i) => ({ agent: ['a', 'b', 'c'][i % 3], text: `turn ${i + 1} ${'t'.repeat(800)}` }));
  const input = promptInput(roundRobin, 'b', { thread, triggers: [{ from: 'a', text: thread[7].text }] });

  test('the oldest thread entries go first, in order, labelled by their agent', () => {
    const window = tokens({ ...input, thread: thread.slice(5) }) + RESERVE;
    const plan = planContext(input, window, RESERVE);
    expect(plan.input.thread).toEqual(thread.slice(5));
    expect(plan.overflow).toEqual(thread.slice(0, 5).map((e) => `${e.agent}: ${e.text}`));
    expect(plan.dropped).toEqual({ ownRecent: 0, thread: 5 });
    expect(plan.fits).toBe(true);
  });

  test('the newest entry (what triggered this turn) is kept even when nothing fits', () => {
    const plan = planContext(input, 50, 10);
    expect(plan.input.thread).toEqual([thread[7]]);
    expect(plan.overflow).toHaveLength(7);
    expect(plan.fits).toBe(false);
  });
});

describe('planContext without a context window', () => {
  test('only the count bounds apply and nothing asks for compaction', () => {
    const own = Array.from({ length: 5 }, (_, i) => `r${i + 1} ${'z'.repeat(100000)}`);
    const plan = planContext(promptInput(reviewLoop, 'writer', { ownRecent: own }));
    expect(plan.input.ownRecent).toEqual(own.slice(3));
    expect(plan.overflow).toHaveLength(3);
    expect(plan.budgetTokens).toBeUndefined();
    expect(plan.fits).toBe(true);
    expect(needsCompaction(plan)).toBe(false);
  });

  test('over 1 MiB, the longest texts are cut to a common length and short ones are untouched', () => {
    const big = (c: string, n: number): string => c.repeat(n);
    const input = promptInput(reviewLoop, 'critic', {
      ownRecent: [big('o', 200000)],
      triggers: [
        { from: 'writer', text: big('w', 900000) },
        { from: 'critic', text: big('潮', 200000) },
        { from: 'parent', text: 'short note' },
      ],
    });
    const plan = planContext(input);
    expect(plan.bytes).toBeLessThanOrEqual(INPUT_CAP_BYTES);
    expect(plan.bytes).toBeGreaterThan(INPUT_CAP_BYTES - 1024);
    expect(plan.fits).toBe(true);
    const [own] = plan.input.ownRecent;
    const [w, cjk, note] = plan.input.triggers.map((t) => t.text);
    expect(own).toBe(big('o', 200000));
    expect(note).toBe('short note');
    expect(w).toMatch(/^w+\n\[troupe: truncated \d+ bytes\]$/);
    expect(cjk).toMatch(/^潮+\n\[troupe: truncated \d+ bytes\]$/);
    const wBytes = Buffer.byteLength(w);
    const cjkBytes = Buffer.byteLength(cjk);
    expect(Math.abs(wBytes - cjkBytes)).toBeLessThanOrEqual(3);
  });

  test('fits=false when the instructions alone exceed 1 MiB (they are never cut)', () => {
    const graph = graphOf({
      name: 'huge',
      instructions: { a: 'i'.repeat(INPUT_CAP_BYTES + 1) },
      edges: [
        { from: 'parent', to: 'a' },
        { from: 'a', to: 'parent' },
      ],
    });
    expect(planContext(promptInput(graph, 'a')).fits).toBe(false);
  });
});
