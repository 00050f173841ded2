import { decodeHeaderValue, TROUPE_HEADERS } from '../../src/core/llm/contract';
import { startHarness, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

// Agent names, an edge label and a workflow id outside ASCII: HTTP headers cannot carry them raw.
const ROLE = `
name: bilingual
agents:
  研究者: { instructions: "调研这个主题。" }
  评审: { instructions: "评审研究结果。" }
collaboration:
  flow:
    - parent -> 研究者
    - "研究者 -> 评审: 交给评审"
    - 评审 -> parent
  termination:
    any_of:
      - converged: { agent: 评审, criteria: "评审认可研究结果" }
`;

describe('non-ASCII agent names, edge labels and workflow ids', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('the run completes and the endpoint sees every name and the workflow id decoded', async () => {
    h.stub.script('研究者', [{ text: '研究结果：潮汐由月球引起' }]);
    h.stub.script('评审', [{ text: '评审意见：通过' }]);
    h.stub.script('judge:评审', [{ text: JSON.stringify({ converged: true, reason: '认可' }) }]);
    const workflowId = uniqueWorkflowId('运行-éte');

    const result = await h.run(ROLE, { task: '解释潮汐', workflowId });

    expect(result).toMatchObject({ status: 'completed', finalAgent: '评审', finalText: '评审意见：通过' });
    expect(result.warnings).toEqual([]);
    expect([h.stub.hits('研究者'), h.stub.hits('评审'), h.stub.hits('judge:评审')]).toEqual([1, 1, 1]);
    expect(h.stub.requests.map((r) => r.agent).sort()).toEqual(['研究者', '评审', '评审'].sort());
    for (const r of h.stub.requests) {
      expect(decodeHeaderValue(String(r.headers[TROUPE_HEADERS.workflowId]))).toBe(workflowId);
    }
    const review = h.stub.requestsFor('评审')[0].prompt;
    expect(review).toContain('研究结果：潮汐由月球引起');
    expect(review).toContain('研究者 (交给评审)');
  });
});
