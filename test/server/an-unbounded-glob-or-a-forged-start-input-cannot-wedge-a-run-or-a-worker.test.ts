/**
 * A role line cannot wedge a run or a worker (docs/semantics.md, "Bounds on hostile input"): a tool glob of 30 stars
 * is refused by `troupe validate`; a graph carrying it, started by a client of its own that skips
 * validation, ends at once `failed/fatal_error` naming it — no workflow task times out or fails on
 * the way — and so does a start input that carries state (which would skip the start-of-run checks),
 * and one whose `teamState` (docs/semantics.md, "Teams that go on") is of another version, names a
 * cursor agent not in the team, or is over its bound: each ends the run at its start with the reason.
 * The same worker then runs a good graph as usual.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { startRun } from '../../src/client';
import { GRAPH_CHECK_TEXTS } from '../../src/core/graph/check-graph';
import { RUN_END_TEXTS } from '../../src/core/ending/texts';
import { TOOL_GLOB_TEXTS } from '../../src/core/llm/tool-glob';
import { createRunState } from '../../src/core/state/state';
import { sizeProblem, TEAM_STATE_MAX_BYTES, TEAM_STATE_TEXTS, type TeamState } from '../../src/core/state/team-state';
import { WORKFLOW_TYPE } from '../../src/contract';
import { troupe } from '../helpers/cli';
import { rawHistory } from '../helpers/history-scan';
import { compileYaml, startHarness, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

const EventType = temporal.api.enums.v1.EventType;
const STARS = `${'*'.repeat(30)}X`;
const ROLE = `
name: deploys
agents:
  ops: { instructions: "Deploy.", tools: [signal] }
collaboration:
  topology: pipeline
  agents: [ops]
`;

/** Workflow-task failures and timeouts in a run's history: a wedged run retries its task forever. */
async function taskTrouble(h: Harness, workflowId: string): Promise<string[]> {
  const history = await rawHistory(h.client, workflowId);
  const trouble = new Set<number>([EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT]);
  return (history.events ?? []).filter((e) => trouble.has(Number(e.eventType))).map((e) => EventType[Number(e.eventType)]);
}

describe('a role line or start input from a client of its own', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('troupe validate refuses the 30-star glob, located', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-glob-')), 'role.yaml');
    fs.writeFileSync(file, `${ROLE}approval:\n  tools: ["${STARS}"]\n`);
    const r = await troupe('validate', file);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${file}:9:11 approval.tools[0]: ${TOOL_GLOB_TEXTS.tooManyStars(30)}`);
  });

  test('a graph carrying it ends at once, failed, naming each glob; no workflow task fails or times out', async () => {
    const graph = compileYaml(ROLE);
    graph.approval.tools = [STARS];
    graph.agents.ops.tools = ['signal', `files.${STARS}`];
    const handle = await startRun(h.client, { role: graph, task: 't', taskQueue: h.worker.taskQueue, workflowId: uniqueWorkflowId('glob') });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', steps: 0 });
    expect(r.reasonText).toBe(
      RUN_END_TEXTS.prepareFailed(
        [
          GRAPH_CHECK_TEXTS.issue('agents.ops.tools[1]', TOOL_GLOB_TEXTS.tooManyStars(30)),
          GRAPH_CHECK_TEXTS.issue('approval.tools[0]', TOOL_GLOB_TEXTS.tooManyStars(30)),
        ].join('; '),
      ),
    );
    expect(h.stub.requests).toHaveLength(0);
    expect(await taskTrouble(h, handle.workflowId)).toEqual([]);
  });

  test('a start input carrying state is refused before anything reads it', async () => {
    const graph = compileYaml(ROLE);
    const carried = createRunState(graph, 'forged', 'someone-else', 0);
    carried.usage.toolCalls = { total: 0, byAgent: {}, byTool: {}, refused: 0 };
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.worker.taskQueue,
      workflowId: uniqueWorkflowId('carried'),
      args: [{ graph, task: 't', carried }],
    });
    const r = (await handle.result()) as { status: string; reason: string; reasonText: string };
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', reasonText: RUN_END_TEXTS.carriedAtStart });
    expect(h.stub.requests).toHaveLength(0);
    expect(await taskTrouble(h, handle.workflowId)).toEqual([]);
  });

  test('a forged teamState (another version, a cursor agent not in the team, over its bound) ends the run at its start with the reason', async () => {
    h.stub.script('ops', [{ text: 'deployed' }]);
    const graph = compileYaml(ROLE);
    const good = (await h.run(graph)).teamState!;
    expect(good.cursor).toEqual({ kind: 'entry' });
    h.stub.reset();
    const big: TeamState = { ...good, contexts: { ops: { own: ['x'.repeat(TEAM_STATE_MAX_BYTES)] } } };
    const forged: Array<[unknown, string]> = [
      [{ ...good, version: 2 }, TEAM_STATE_TEXTS.version(2)],
      [{ ...good, cursor: { kind: 'wave', wave: [{ agent: 'mallory', triggers: [] }] } }, TEAM_STATE_TEXTS.cursorAgent('mallory')],
      [big, sizeProblem(big)!],
    ];
    expect(sizeProblem(big)).toContain('its largest part is contexts.ops');
    for (const [teamState, reason] of forged) {
      const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: h.worker.taskQueue,
        workflowId: uniqueWorkflowId('forged-team'),
        args: [{ graph, task: 't', teamState: teamState as TeamState }],
      });
      const r = (await handle.result()) as { status: string; reason: string; reasonText: string; steps: number; teamState?: unknown };
      expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', steps: 0 });
      expect(r.reasonText).toBe(RUN_END_TEXTS.prepareFailed(`teamState: ${reason}`));
      expect(r.teamState).toBeUndefined();
      expect(await taskTrouble(h, handle.workflowId)).toEqual([]);
    }
    expect(h.stub.requests).toHaveLength(0);
  });

  test('the same worker runs a good graph as usual', async () => {
    h.stub.script('ops', [{ text: 'deployed' }]);
    expect(await h.run(ROLE)).toMatchObject({ status: 'completed', finalText: 'deployed' });
  });
});
