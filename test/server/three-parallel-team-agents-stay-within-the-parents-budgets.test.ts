/**
 * Concurrent team agents draw on one budget (issue 30, finding 4; docs/teams.md, "Nested teams"):
 * three team agents in one wave under the parent's `max_agent_calls: 4` made 9 calls, and spent 135
 * tokens against a cap of 50, because each child started with the whole remainder. Each child now
 * starts with its share of what the parent has left, so all of them at once stay within the parent's
 * `max_agent_calls` and, as a run's own waves do, stop at their share of its token cap.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import type { RunResult } from '../../src/core/ending/result';
import type { CompiledGraph } from '../../src/core/graph/types';
import { startHarness, type Harness } from '../helpers/runs';

/** A team whose run wants three model calls. */
const TEAM = `
name: research-team
agents:
  searcher: { instructions: "Search." }
  checker: { instructions: "Check." }
  summarizer: { instructions: "Summarize." }
collaboration:
  topology: pipeline
  agents: [searcher, checker, summarizer]
`;

/** Three team agents in the parent's first wave. */
const PARENT = (budget: string) => `
name: fan-out
agents:
  north: { description: Researches the north, team: ./research-team.yaml }
  south: { description: Researches the south, team: ./research-team.yaml }
  east: { description: Researches the east, team: ./research-team.yaml }
collaboration:
  flow: [parent -> north, parent -> south, parent -> east, north -> parent, south -> parent, east -> parent]
budget: ${budget}
`;

/** Every model call of the team's agents reports 15 tokens. */
const FIFTEEN = { text: 'found', usage: { prompt_tokens: 10, completion_tokens: 5 } };
const TEAM_AGENTS = ['searcher', 'checker', 'summarizer'];

describe('three team agents in one wave', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-team-budget-'));
    fs.writeFileSync(path.join(dir, 'research-team.yaml'), TEAM);
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });
  beforeEach(() => {
    h.stub.reset();
    for (const agent of TEAM_AGENTS) h.stub.script(agent, [FIFTEEN, FIFTEEN, FIFTEEN]);
  });

  function load(budget: string): CompiledGraph {
    fs.writeFileSync(path.join(dir, 'role.yaml'), PARENT(budget));
    const r = loadRoleFile(path.join(dir, 'role.yaml'));
    expect(r.errors).toEqual([]);
    return r.graph!;
  }

  /** The child runs of a parent that ended, by agent. */
  async function children(workflowId: string, runId: string): Promise<Record<string, RunResult>> {
    const out: Record<string, RunResult> = {};
    for (const agent of ['north', 'south', 'east']) out[agent] = (await h.client.workflow.getHandle(`${workflowId}/${runId}/${agent}-1`).result()) as RunResult;
    return out;
  }

  const modelCalls = () => TEAM_AGENTS.reduce((n, a) => n + h.stub.hits(a), 0);

  test("stay within the parent's max_agent_calls: 4, all of them at once", async () => {
    const handle = await h.start(load('{ max_agent_calls: 4 }'));
    const r = await handle.result();
    // 2 + 1 + 1 calls: no child can finish its three, so the team that stops first fails the parent
    expect(r).toMatchObject({ status: 'failed', reason: 'team_failed' });
    expect(modelCalls()).toBeLessThanOrEqual(4);
    expect(r.usage.agentCalls).toBeLessThanOrEqual(4);
    const runs = await children(handle.workflowId, handle.firstExecutionRunId);
    const calls = Object.values(runs).map((c) => c.usage.agentCalls);
    expect(calls.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4);
  });

  test("stop at their shares of the parent's token cap: 90 tokens, 30 each, where each alone would spend 45", async () => {
    const handle = await h.start(load('{ max_total_tokens: 90 }'));
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'failed', reason: 'team_failed' });
    expect(modelCalls() * 15).toBeLessThanOrEqual(90);
    expect(r.usage.totalTokens).toBeLessThanOrEqual(90);
    const runs = await children(handle.workflowId, handle.firstExecutionRunId);
    for (const child of Object.values(runs)) expect(child.usage.totalTokens).toBeLessThanOrEqual(30);
  });

  test('run whole when the shares cover them: 9 agent calls and 135 tokens, exactly', async () => {
    const handle = await h.start(load('{ max_agent_calls: 9, max_total_tokens: 136 }'));
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed' });
    expect(r.usage).toMatchObject({ agentCalls: 9, totalTokens: 135 });
    expect(modelCalls()).toBe(9);
  });
});
