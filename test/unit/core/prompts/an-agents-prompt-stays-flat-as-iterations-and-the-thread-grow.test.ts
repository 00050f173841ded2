import { planContext } from '../../../../src/core/prompts/bounds';
import { utf8ByteLength } from '../../../../src/core/text/utf8';
import { buildAgentMessages, OWN_RESULTS_KEPT, THREAD_ENTRIES_KEPT } from '../../../../src/core/prompts/build';
import { graphOf, promptInput, topologyEdges } from './prompts-fixtures';

const reviewLoop = graphOf({
  name: 'essay-review',
  topology: 'review-loop',
  instructions: { writer: 'You write.', critic: 'You critique.' },
  edges: topologyEdges('review-loop', ['writer', 'critic']),
  maxIterations: 1000,
});
const roundRobin = graphOf({
  name: 'chat',
  topology: 'round-robin',
  instructions: { a: 'A.', b: 'B.' },
  edges: topologyEdges('round-robin', ['a', 'b']),
  context: 'thread',
  maxIterations: 1000,
});

const bytesOf = (input: Parameters<typeof buildAgentMessages>[0]): number =>
  buildAgentMessages(input).reduce((n, m) => n + utf8ByteLength(m.content), 0);

const draft = (k: number): string => `Draft v${k}: ${'The tide rises and falls twice a day. '.repeat(20)}`;
const critique = (k: number): string => `score: ${50 + (k % 40)}\nCritique ${k}: ${'Add evidence for each claim. '.repeat(10)}`;

/** The writer's input at iteration k with its whole history handed in, as an unbounded caller would. */
function writerAt(k: number) {
  return promptInput(reviewLoop, 'writer', {
    wave: 2 * k - 1,
    iteration: k,
    ownRecent: Array.from({ length: k - 1 }, (_, i) => draft(i + 1)),
    triggers: [{ from: 'critic', text: critique(k - 1) }],
  });
}

describe('prompt bounds', () => {
  test(`an inbox agent with 50 own results sees only the last ${OWN_RESULTS_KEPT}`, () => {
    const own = Array.from({ length: 50 }, (_, i) => `result ${i + 1}`);
    const input = promptInput(reviewLoop, 'writer', { ownRecent: own });
    const user = buildAgentMessages(input)[1].content;
    expect(user).toContain('### Your result 1\nresult 49');
    expect(user).toContain('### Your result 2 (latest)\nresult 50');
    expect(user).not.toContain('result 48');

    const plan = planContext(input);
    expect(plan.input.ownRecent).toEqual(['result 49', 'result 50']);
    expect(plan.overflow).toHaveLength(48);
    expect(plan.overflow[0]).toBe('writer: result 1');
    expect(plan.overflow[47]).toBe('writer: result 48');
    expect(plan.dropped).toEqual({ ownRecent: 48, thread: 0 });
  });

  test(`a thread of 100 entries keeps the last ${THREAD_ENTRIES_KEPT}`, () => {
    const thread = Array.from({ length: 100 }, (_, i) => ({ agent: i % 2 === 0 ? 'a' : 'b', text: `turn ${i + 1}` }));
    const input = promptInput(roundRobin, 'a', { thread });
    const user = buildAgentMessages(input)[1].content;
    expect(user.match(/^### /gm)).toHaveLength(8);
    expect(user).toContain('### a (you)\nturn 93');
    expect(user).toContain('### b\nturn 100');
    expect(user).not.toContain('turn 92');

    const plan = planContext(input);
    expect(plan.input.thread.map((e) => e.text)).toEqual(thread.slice(92).map((e) => e.text));
    expect(plan.overflow.slice(0, 2)).toEqual(['a: turn 1', 'b: turn 2']);
    expect(plan.overflow).toHaveLength(92);
    expect(plan.dropped).toEqual({ ownRecent: 0, thread: 92 });
  });

  test('the built prompt size stays flat as iterations grow (iteration 5 vs 500)', () => {
    const at5 = bytesOf(planContext(writerAt(5)).input);
    const at500 = bytesOf(planContext(writerAt(500)).input);
    const historyAt500 = writerAt(500).ownRecent.reduce((n, t) => n + utf8ByteLength(t), 0);
    expect(at5).toBeGreaterThan(1500);
    expect(at500 - at5).toBeGreaterThanOrEqual(0);
    expect(at500 - at5).toBeLessThanOrEqual(16);
    expect(historyAt500).toBeGreaterThan(100 * at500);
  });

  test('a thread-mode prompt stays flat as the thread grows (turn 10 vs 1000)', () => {
    const threadOf = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ agent: i % 2 === 0 ? 'a' : 'b', text: `turn ${i + 1}: ${'x'.repeat(200)}` }));
    const at10 = bytesOf(promptInput(roundRobin, 'a', { thread: threadOf(10), iteration: 5 }));
    const at1000 = bytesOf(promptInput(roundRobin, 'a', { thread: threadOf(1000), iteration: 500 }));
    expect(at1000 - at10).toBeGreaterThanOrEqual(0);
    expect(at1000 - at10).toBeLessThanOrEqual(8 * 3 + 2);
  });
});
