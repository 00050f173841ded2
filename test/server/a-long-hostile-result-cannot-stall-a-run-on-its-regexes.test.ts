/**
 * A long hostile agent result against the run's regular expressions (docs/semantics.md, "Bounds on hostile input").
 * Validation rejects patterns that can backtrack catastrophically, and so does the worker when a
 * graph built by hand skipped validation: such a run ends at its start, before any call, with no
 * failed workflow task. A validated pattern reads at most the first 16 Ki characters of a result
 * (the unit tests hold that bound), and the run goes on and ends for its own reason.
 */
import { formatIssue, loadRoleConfig } from '../../src/core/config/load';
import type { CompiledGraph } from '../../src/core/graph/types';
import { compileYaml, startHarness, type Harness } from '../helpers/runs';

const role = (regex: string, flags = '') => `
name: hostile-text
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 2
  termination:
    any_of:
      - result_matches: { agent: critic, regex: ${JSON.stringify(regex)}${flags ? `, flags: ${flags}` : ''} }
`;

/** 64 KiB of digits: what `\d+/10` backtracks on quadratically, and what `^VERDICT` never finds. */
const HOSTILE = '1'.repeat(64 * 1024);

/** Workflow tasks that failed or timed out in the run's history. */
async function failedTasks(h: Harness, workflowId: string): Promise<number> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes).length;
}

describe('a long hostile result against the run regexes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('a quadratic pattern is refused when the role is validated', () => {
    expect(loadRoleConfig(role('\\d+/10'), 'role.yaml').errors.map(formatIssue)).toEqual([
      expect.stringMatching(/^role\.yaml:12:49 collaboration\.termination\.any_of\[0\]\.result_matches\.regex: regex "\\d\+\/10" can backtrack catastrophically: matching it can take quadratic time/),
    ]);
  });

  test('a quadratic pattern in a graph that skipped validation is refused by the worker: no call, no failed workflow task', async () => {
    const graph: CompiledGraph = compileYaml(role('PLACEHOLDER'));
    graph.termination.anyOf = ['\\d+/10', '\\d+/20'].map((regex) => ({ kind: 'result_matches' as const, agent: 'critic', regex }));
    h.stub.script('critic', [{ text: HOSTILE }]);
    const handle = await h.start(graph);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', steps: 0 });
    expect(r.reasonText).toMatch(/^fatal_error: graph termination\.anyOf\[0\]\.result_matches\.regex: regex "\\d\+\/10" can backtrack catastrophically/);
    expect(h.stub.requests).toHaveLength(0);
    expect(await failedTasks(h, handle.workflowId)).toBe(0);
  });

  test('a validated pattern on the same text: the run ends by its cap, no workflow task fails', async () => {
    h.stub.script('critic', [{ text: HOSTILE }]);
    const handle = await h.start(role('^VERDICT: (pass|fail)$', 'm'));
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 4 });
    expect(await failedTasks(h, handle.workflowId)).toBe(0);
  });
});
