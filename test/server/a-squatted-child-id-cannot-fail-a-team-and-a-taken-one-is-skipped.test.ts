/**
 * Child ids no other run can take (issue 30, finding 6; docs/teams.md, "Nested teams"). A team
 * agent's child run was `<parent id>/<agent>-<n>`: anyone who could start runs could start
 * `victim/research-1` first, and the parent's team agent then failed with "Workflow execution already
 * started; check the endpoint (OPENAI_BASE_URL)". Child ids now hold the parent's run id, which
 * nobody knows before the parent starts, so the squat fails nothing; troupe's client and CLI refuse
 * ids with `/`; and an id taken anyway (someone who read the run id started a run there by hand) is
 * skipped: the team agent takes the next n. (It once failed the team agent, saying so; a reset run's
 * team agents meet its base run's children at their ids, which the workflow cannot tell from a
 * squatter's, so every held id is skipped — docs/cli.md, "troupe rewind".)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import type { CompiledGraph } from '../../src/core/graph/types';
import { CHILD_ID_TEXTS } from '../../src/core/teams/team-run';
import { troupe } from '../helpers/cli';
import { startHarness, type Harness } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';
import { uniqueTaskQueue, uniqueWorkflowId } from '../helpers/temporal';

const TEAM = `
name: research-team
agents:
  searcher: { instructions: "Search." }
collaboration:
  topology: pipeline
  agents: [searcher]
`;

const PARENT = `
name: report
agents:
  intro: { instructions: "Introduce." }
  research: { description: Researches the question, team: ./research-team.yaml }
collaboration:
  topology: pipeline
  agents: [intro, research]
`;

describe('a team agent whose child id someone squats', () => {
  let h: Harness;
  let dir: string;
  let graph: CompiledGraph;
  // runs started by hand, on a queue no worker polls: they hold their ids until terminated
  const squatters: string[] = [];
  const squat = async (workflowId: string) => {
    await h.client.workflow.start('squatter', { taskQueue: uniqueTaskQueue('nobody'), workflowId, args: [] });
    squatters.push(workflowId);
  };

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-squat-'));
    fs.writeFileSync(path.join(dir, 'research-team.yaml'), TEAM);
    fs.writeFileSync(path.join(dir, 'role.yaml'), PARENT);
    const loaded = loadRoleFile(path.join(dir, 'role.yaml'));
    expect(loaded.errors).toEqual([]);
    graph = loaded.graph!;
  });
  afterAll(async () => {
    for (const id of squatters) await h.client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });
  beforeEach(() => h.stub.reset());

  test('a run started first as <parent id>/research-1 fails nothing: the child id holds the run id', async () => {
    const workflowId = uniqueWorkflowId('victim');
    await squat(`${workflowId}/research-1`);
    const handle = await h.start(graph, { workflowId });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'searcher reply 1' });
    const childId = `${workflowId}/${handle.firstExecutionRunId}/research-1`;
    expect(((await h.client.workflow.getHandle(childId).describe()).parentExecution)?.workflowId).toBe(workflowId);
  });

  test('an id taken anyway is skipped: the team agent takes the next n and the squatter is left as it is', async () => {
    const gate = stubGate();
    h.stub.script('intro', [gate.hold({ text: 'intro' })]);
    const handle = await h.start(graph);
    // someone who read the parent's run id starts a run at its child's id before the team agent runs
    const taken = `${handle.workflowId}/${handle.firstExecutionRunId}/research-1`;
    await squat(taken);
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'searcher reply 1' });
    const childId = `${handle.workflowId}/${handle.firstExecutionRunId}/research-2`;
    expect(((await h.client.workflow.getHandle(childId).describe()).parentExecution)?.workflowId).toBe(handle.workflowId);
    const squatter = await h.client.workflow.getHandle(taken).describe();
    expect(squatter).toMatchObject({ type: 'squatter', status: { name: 'RUNNING' } });
    expect(squatter.parentExecution).toBeUndefined();
  });

  test("troupe's client and CLI start no run with / in its id", async () => {
    const id = `${uniqueWorkflowId('victim')}/research-1`;
    await expect(h.start(graph, { workflowId: id })).rejects.toThrow(`startRun: ${CHILD_ID_TEXTS.slashInRunId(id)}`);
    const cli = await troupe('run', path.join(dir, 'role.yaml'), '--task', 't', '--id', id);
    expect(cli).toMatchObject({ code: 1, stderr: `${CHILD_ID_TEXTS.slashInRunId(id)}\n` });
    await expect(h.client.workflow.getHandle(id).describe()).rejects.toThrow();
  });
});
