import { estimateMessagesTokens } from '../../src/core/prompts/bounds';
import type { ChatMessage } from '../../src/core/llm/contract';
import { startHarness, type Harness } from '../helpers/runs';
import { STUB_DEFAULTS, type StubRequest, type StubStep } from '../helpers/stub-llm';

const FILLER = 'lorem ipsum dolor sit amet '.repeat(60); // ~1620 ASCII chars, ~405 estimated tokens

/** A scripted reply `[<agent> turn N] <filler>`, N counting that agent's replies. */
function longTurns(agent: string): StubStep {
  let n = 0;
  return { text: () => `[${agent} turn ${++n}] ${FILLER}` };
}

const promptTokens = (req: StubRequest): number => estimateMessagesTokens(req.messages as ChatMessage[]);
const turnTags = (text: string): string[] => text.match(/\[\w+ turn \d+\]/g) ?? [];

/**
 * Every `[x turn N]` tag an agent's compaction folded into its summary is folded once, and is gone
 * from that agent's later prompts.
 */
function expectCompactedTurnsNotRepeated(h: Harness, agent: string): void {
  const compactions = h.stub.requestsFor(`compaction:${agent}`);
  const foldedSoFar = new Set<string>();
  for (const c of compactions) {
    const entries = c.messages[1].content.split('</previous_summary>')[1];
    const folded = turnTags(entries);
    expect(folded.length).toBeGreaterThan(0);
    for (const tag of folded) {
      expect(foldedSoFar).not.toContain(tag);
      foldedSoFar.add(tag);
    }
    for (const later of h.stub.requestsFor(agent).filter((r) => r.n > c.n)) {
      for (const tag of folded) expect(later.prompt).not.toContain(tag);
    }
  }
}

describe('compaction keeps agent prompts inside model.context_window', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('inbox review-loop of 12 turns with context_window 1000: compaction runs, every agent prompt fits, usage counts it', async () => {
    h.stub.script('writer', [longTurns('writer')]);
    h.stub.script('critic', [longTurns('critic')]);
    const r = await h.run(`
name: compact-inbox
model: { name: small-model, max_tokens: 200, context_window: 1000 }
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 6
`);
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 12 });

    const compactions = h.stub.hits('compaction:*');
    expect(h.stub.hits('compaction:writer')).toBeGreaterThan(0);
    expect(h.stub.hits('compaction:critic')).toBeGreaterThan(0);
    for (const req of h.stub.requestsFor('*')) expect(promptTokens(req)).toBeLessThanOrEqual(1000 - 200);
    for (const req of h.stub.requestsFor('compaction:*')) {
      expect(promptTokens(req) + req.body.max_tokens).toBeLessThanOrEqual(1000);
    }
    const lastWriter = h.stub.requestsFor('writer').at(-1)!;
    expect(lastWriter.prompt).toContain(STUB_DEFAULTS.compactionText('writer'));
    expectCompactedTurnsNotRepeated(h, 'writer');
    expectCompactedTurnsNotRepeated(h, 'critic');

    const served = h.stub.requests.reduce((sum, q) => sum + (q.status === 200 ? q.responseBody.usage.total_tokens : 0), 0);
    expect(r.usage).toMatchObject({ compactionCalls: compactions, agentCalls: 12, totalTokens: served });
    expect(r.usage.byRound).toEqual([expect.objectContaining({ round: 1, totalTokens: served })]);
    expect(r.warnings.filter((w) => w.includes('compaction'))).toEqual([]);
  });

  test('thread round-robin of 3 agents with context_window 1400: summarized thread entries are not shown again, prompts fit', async () => {
    for (const a of ['ann', 'bob', 'cy']) h.stub.script(a, [longTurns(a)]);
    const r = await h.run(`
name: compact-thread
model: { name: small-model, max_tokens: 200, context_window: 1400 }
agents:
  ann: { instructions: "Propose." }
  bob: { instructions: "Refine." }
  cy: { instructions: "Check." }
collaboration:
  topology: round-robin
  agents: [ann, bob, cy]
  max_iterations: 4
`);
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 12 });
    for (const a of ['ann', 'bob', 'cy']) {
      expect(h.stub.hits(`compaction:${a}`)).toBeGreaterThan(0);
      expectCompactedTurnsNotRepeated(h, a);
    }
    const agentRequests = h.stub.requestsFor('*');
    for (const req of agentRequests) expect(promptTokens(req)).toBeLessThanOrEqual(1400 - 200);
    // each turn still sees the entry that triggered it: the previous speaker's latest turn
    for (let i = 1; i < agentRequests.length; i += 1) {
      const previous = agentRequests[i - 1];
      const tag = turnTags(previous.responseBody.choices[0].message.content)[0];
      expect(agentRequests[i].prompt).toContain(tag);
    }
    expect(r.usage.compactionCalls).toBe(h.stub.hits('compaction:*'));
  });

  test('a prompt that cannot fit even without history → failed/token_window_exceeded, the agent is never called', async () => {
    h.stub.script('writer', [longTurns('writer')]);
    const r = await h.run(`
name: too-small
model: { name: small-model, max_tokens: 100, context_window: 500 }
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
`);
    expect(r).toMatchObject({ status: 'failed', reason: 'token_window_exceeded' });
    expect(r.reasonText).toMatch(/^token_window_exceeded: critic's prompt needs ~\d+ tokens, more than its context_window 500 allows$/);
    expect(h.stub.hits('critic')).toBe(0);
    expect(r.results.writer.count).toBe(1);
  });

  test('compaction failing 3 times in a row (500 after 3 attempts each) → failed/compaction_circuit_breaker; agents ran with old turns dropped meanwhile', async () => {
    h.stub.script('writer', [longTurns('writer')]);
    h.stub.script('critic', [longTurns('critic')]);
    h.stub.script('compaction:*', [{ status: 500, errorMessage: 'summarizer down' }]);
    const r = await h.run(`
name: breaker
model: { name: small-model, max_tokens: 200, context_window: 1000 }
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 6
`);
    expect(r).toMatchObject({
      status: 'failed',
      reason: 'compaction_circuit_breaker',
      reasonText: 'compaction_circuit_breaker: 3 consecutive compaction failures',
    });
    expect(h.stub.hits('compaction:*')).toBe(9);
    expect(h.stub.hits('writer')).toBe(2);
    expect(h.stub.hits('critic')).toBe(2);
    for (const req of h.stub.requestsFor('*')) expect(promptTokens(req)).toBeLessThanOrEqual(1000 - 200);
    expect(r.warnings).toEqual(
      expect.arrayContaining([
        'compaction for writer failed (1 in a row); older turns were dropped instead',
        'compaction for critic failed (2 in a row); older turns were dropped instead',
        'compaction for writer failed (3 in a row); older turns were dropped instead',
      ]),
    );
    const last = h.stub.requestsFor('compaction:*').at(-1)!;
    expect(r.diagnostics).toMatchObject({ status: 500, requestId: last.id, agent: 'writer', kind: 'compaction' });
    expect(r.usage.compactionCalls).toBe(0);
  });
});
