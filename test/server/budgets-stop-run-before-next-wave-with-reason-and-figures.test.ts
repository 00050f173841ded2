import { startHarness, type Harness } from '../helpers/runs';

const loop = (budget: string, head = '') => `
name: budgeted
${head}
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
budget:
${budget}
`;

describe('budgets stop the run before the next wave, with their reason and figures', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('max_total_tokens 1800 at 500 tokens a call → budget_exceeded/token_budget_exceeded after the 4th call, no 5th call', async () => {
    h.stub.script('*', [{ usage: { prompt_tokens: 400, completion_tokens: 100 } }]);
    const r = await h.run(loop('  max_total_tokens: 1800'));
    expect(r).toMatchObject({
      status: 'budget_exceeded',
      reason: 'token_budget_exceeded',
      reasonText: 'token budget 1800 reached (2000 tokens used after 4 agent calls)',
    });
    expect(h.stub.hits()).toBe(4);
    expect(r.usage).toMatchObject({ totalTokens: 2000, promptTokens: 1600, completionTokens: 400, agentCalls: 4 });
    expect(r.results.critic.count).toBe(2);
  });

  test('a termination condition that holds on the wave that crosses the budget wins over budget_exceeded', async () => {
    h.stub.script('*', [{ usage: { prompt_tokens: 400, completion_tokens: 100 } }]);
    h.stub.script('critic', [{ text: 'more', usage: { prompt_tokens: 400, completion_tokens: 100 } }, { text: 'APPROVED', usage: { prompt_tokens: 400, completion_tokens: 100 } }]);
    const r = await h.run(
      loop('  max_total_tokens: 1800').replace(
        '  max_iterations: 10',
        `  max_iterations: 10
  termination:
    any_of:
      - text_mention: { text: APPROVED, sources: [critic] }`,
      ),
    );
    expect(r).toMatchObject({ status: 'completed', reason: 'text_mention' });
    expect(r.usage.totalTokens).toBe(2000);
    expect(h.stub.hits()).toBe(4);
  });

  test('max_cost_usd $0.50 at $0.20 a call (priced model) → money_budget_exceeded after the 3rd call', async () => {
    h.stub.script('*', [{ usage: { prompt_tokens: 100_000, completion_tokens: 50_000 } }]);
    const r = await h.run(
      loop(
        '  max_cost_usd: 0.5',
        `model: { name: gpt-test }
pricing:
  gpt-test: { input: 1.0, output: 2.0 }`,
      ),
    );
    expect(r).toMatchObject({
      status: 'budget_exceeded',
      reason: 'money_budget_exceeded',
      reasonText: 'money budget $0.50 reached ($0.6000 spent after 3 agent calls)',
    });
    expect(h.stub.hits()).toBe(3);
    expect(h.stub.requests.every((q) => q.model === 'gpt-test')).toBe(true);
    expect(r.usage.costUsd).toBeCloseTo(0.6, 10);
    expect(r.usage.byAgent.writer.costUsd).toBeCloseTo(0.4, 10);
    expect(r.usage.byAgent.critic.costUsd).toBeCloseTo(0.2, 10);
  });

  test('max_agent_calls 3 → max_turns_exceeded after exactly 3 dispatches', async () => {
    const r = await h.run(loop('  max_agent_calls: 3'));
    expect(r).toMatchObject({
      status: 'budget_exceeded',
      reason: 'max_turns_exceeded',
      reasonText: 'agent call budget 3 reached (3 agent calls dispatched)',
    });
    expect(h.stub.hits()).toBe(3);
    expect(r.usage.agentCalls).toBe(3);
    expect(r.steps).toBe(3);
  });

  test('max_duration_ms 3000 with 1.2 s calls → duration_budget_exceeded; no call starts after the limit', async () => {
    h.stub.script('*', [{ delayMs: 1200 }]);
    const t0 = Date.now();
    const r = await h.run(loop('  max_duration_ms: 3000'));
    expect(r).toMatchObject({ status: 'budget_exceeded', reason: 'duration_budget_exceeded' });
    const calls = h.stub.hits();
    expect(r.usage.agentCalls).toBe(calls);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(3);
    const m = /^duration budget 3s reached \((\d+(?:\.\d)?)s of active time after (\d+) agent calls?\)$/.exec(r.reasonText);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(3);
    expect(Number(m![2])).toBe(calls);
    expect(r.activeMs).toBeGreaterThanOrEqual(3000);
    // the run's active clock starts after t0, so a call started < 3 s after t0 started inside the budget
    for (const req of h.stub.requests) expect(req.startedAt - t0).toBeLessThan(3000);
  });

  const fanOut = (calls: number) => `
name: fan-out
agents:
  lead: { instructions: "Split the work." }
  a: { instructions: "Part A." }
  b: { instructions: "Part B." }
  c: { instructions: "Part C." }
collaboration:
  flow:
    - parent -> lead
    - lead -> a
    - lead -> b
    - lead -> c
    - a -> parent
    - b -> parent
    - c -> parent
budget:
  max_agent_calls: ${calls}
`;

  test('max_agent_calls is never exceeded by a multi-agent wave: 3 allowed, lead then a wave of 3 → the wave is refused whole, max_turns_exceeded after 1 call', async () => {
    const r = await h.run(fanOut(3));
    expect(r).toMatchObject({
      status: 'budget_exceeded',
      reason: 'max_turns_exceeded',
      reasonText:
        'agent call budget 3 would be exceeded: the next wave needs 3 agent calls but only 2 of 3 remain (1 agent call dispatched)',
      finalAgent: 'lead',
    });
    expect(h.stub.hits()).toBe(1);
    expect(r.usage.agentCalls).toBe(1);
  });

  test('max_agent_calls 4 → the same fan-out graph completes with exactly 4 calls', async () => {
    const r = await h.run(fanOut(4));
    expect(r).toMatchObject({ status: 'completed', reason: 'exit' });
    expect(h.stub.hits()).toBe(4);
    expect(r.usage.agentCalls).toBe(4);
  });
});
