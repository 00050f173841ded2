import { statusQuery } from '../../src/contract';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';

/**
 * Two rounds (a goal with max_turns 1 continues once) of writer → critic, the critic judged after each
 * result. Prices per 1M tokens: gpt-a $2 in / $8 out (writer), gpt-b $1 in / $4 out (critic, judge).
 */
const CONFIG = `
name: metered
pricing:
  gpt-a: { input: 2, output: 8 }
  gpt-b: { input: 1, output: 4 }
agents:
  writer: { instructions: "Write.", model: { name: gpt-a }, tools: [signal] }
  critic: { instructions: "Critique.", model: { name: gpt-b } }
judge:
  model: { name: gpt-b }
collaboration:
  topology: pipeline
  agents: [writer, critic]
  termination:
    any_of:
      - converged: critic
goal:
  objective: "a short essay"
  max_turns: 1
`;

const WRITER = { prompt_tokens: 1000, completion_tokens: 500 }; // $0.006 a request
const CRITIC = { prompt_tokens: 2000, completion_tokens: 100 }; // $0.0024
const JUDGE = { prompt_tokens: 300, completion_tokens: 20 }; // $0.00038

describe('usage accounting', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('tokens and cost per agent, per round and in total appear in the status query and the RunResult', async () => {
    h.stub.script('writer', [
      // round 1: one tool round, then the reply — two requests in one dispatch
      { toolCalls: [{ name: 'signal', arguments: { type: 'progress' } }], usage: WRITER },
      { text: 'draft 1', usage: WRITER },
      { text: 'draft 2', usage: WRITER },
    ]);
    // the first critic reply is held so the status query can be read while it is in flight
    const gate = stubGate();
    h.stub.script('critic', [
      gate.hold({ text: 'critique 1', usage: CRITIC }),
      { text: 'critique 2', usage: CRITIC },
    ]);
    h.stub.script('judge:critic', [{ text: JSON.stringify({ converged: false, reason: 'not yet' }), usage: JUDGE }]);
    const handle = await h.start(CONFIG);

    const during = await waitForStatus(handle, (s) => s.inFlight.includes('critic'));
    expect(during.usage).toMatchObject({
      promptTokens: 2000,
      completionTokens: 1000,
      totalTokens: 3000,
      agentCalls: 1,
      llmRequests: 2,
      judgeCalls: 0,
      byAgent: { writer: { promptTokens: 2000, completionTokens: 1000, totalTokens: 3000, calls: 1 } },
      byRound: [{ round: 1, totalTokens: 3000 }],
    });
    expect(during.usage.costUsd).toBeCloseTo(0.012, 12);
    expect(during.usage.byAgent.writer.costUsd).toBeCloseTo(0.012, 12);
    gate.open();

    const r = await handle.result();
    expect(r).toMatchObject({ status: 'limit_reached', rounds: 2 });
    expect(h.stub.hits('writer')).toBe(3);
    expect(h.stub.hits('critic')).toBe(2);
    expect(h.stub.hits('judge:critic')).toBe(2);

    expect(r.usage).toMatchObject({
      promptTokens: 3000 + 4000 + 600,
      completionTokens: 1500 + 200 + 40,
      totalTokens: 4500 + 4200 + 640,
      agentCalls: 4,
      judgeCalls: 2,
      compactionCalls: 0,
      llmRequests: 7,
      byAgent: {
        writer: { promptTokens: 3000, completionTokens: 1500, totalTokens: 4500, calls: 2 },
        critic: { promptTokens: 4000, completionTokens: 200, totalTokens: 4200, calls: 2 },
      },
      byRound: [
        { round: 1, totalTokens: 3000 + 2100 + 320 },
        { round: 2, totalTokens: 1500 + 2100 + 320 },
      ],
    });
    expect(r.usage.costUsd).toBeCloseTo(0.018 + 0.0048 + 0.00076, 12);
    expect(r.usage.byAgent.writer.costUsd).toBeCloseTo(0.018, 12);
    expect(r.usage.byAgent.critic.costUsd).toBeCloseTo(0.0048, 12);
    expect(r.usage.byRound[0].costUsd).toBeCloseTo(0.012 + 0.0024 + 0.00038, 12);
    expect(r.usage.byRound[1].costUsd).toBeCloseTo(0.006 + 0.0024 + 0.00038, 12);

    const after = await handle.query(statusQuery);
    expect(after.phase).toBe('finished');
    expect(after.usage).toEqual(r.usage);
  });
});
