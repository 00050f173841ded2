/**
 * `troupe rewind` (replay) of a parent with a team agent (docs/cli.md, "troupe rewind"; docs/teams.md,
 * "Nested teams"): the reset run replays the base run's events up to the reset point under a new run
 * id, so a child started before that point must replay as recorded; a team agent that runs again
 * after the point starts a child under a child id no run used; and resetting a running parent
 * cancels its child in flight.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import type { RunResult } from '../../src/core/ending/result';
import type { CompiledGraph } from '../../src/core/graph/types';
import type { TranscriptStep } from '../../src/core/state/state';
import { transcriptQuery } from '../../src/contract';
import { rewindRun } from '../../src/rewind/rewind';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

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
  outline: { instructions: "Outline." }
  research: { description: Researches the question, team: ./research-team.yaml }
  writer: { instructions: "Write the report." }
collaboration:
  topology: pipeline
  agents: [intro, outline, research, writer]
`;

describe('rewinding a parent with a team agent', () => {
  let h: Harness;
  let dir: string;
  let graph: CompiledGraph;
  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-rewind-team-'));
    fs.writeFileSync(path.join(dir, 'research-team.yaml'), TEAM);
    fs.writeFileSync(path.join(dir, 'role.yaml'), PARENT);
    const loaded = loadRoleFile(path.join(dir, 'role.yaml'));
    expect(loaded.errors).toEqual([]);
    graph = loaded.graph!;
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });
  beforeEach(() => h.stub.reset());

  /** The team agent's child id in a run's transcript. */
  async function childOf(id: string, runId: string): Promise<string | undefined> {
    const steps: TranscriptStep[] = await h.client.workflow.getHandle(id, runId).query(transcriptQuery);
    return steps.find((s) => s.agent === 'research')?.team;
  }

  /** The latest execution of workflow `id`: its run id and its parent's. */
  async function execution(id: string): Promise<{ runId: string; parent?: { workflowId: string | null; runId: string | null } }> {
    const d = await h.client.workflow.getHandle(id).describe();
    return { runId: d.runId, ...(d.parentExecution ? { parent: { workflowId: d.parentExecution.workflowId, runId: d.parentExecution.runId } } : {}) };
  }

  test('to a step after the team agent: its child replays as recorded and only the steps after run again', async () => {
    const first = await h.start(graph, { workflowId: uniqueWorkflowId('rewind-team-after') });
    expect(await first.result()).toMatchObject({ status: 'completed', steps: 4 });
    const child = `${first.workflowId}/${first.firstExecutionRunId}/research-1`;
    expect(await childOf(first.workflowId, first.firstExecutionRunId)).toBe(child);
    const kept = await execution(child);

    const before = h.stub.requests.length;
    const out = await rewindRun(h.client, first.workflowId, { toStep: 3, yes: true });
    const again = (await h.client.workflow.getHandle(first.workflowId, out.runId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'completed', steps: 4, finalText: 'writer reply 2' });
    expect(h.stub.requests.slice(before).map((q) => q.agent)).toEqual(['writer']);
    // the team's step is the recorded one: the same child, started once
    expect(await childOf(first.workflowId, out.runId)).toBe(child);
    expect(await execution(child)).toEqual(kept);
  });

  test('to a step before the team agent: the team runs again as a new child, at the next n, and the base run keeps its child', async () => {
    const first = await h.start(graph, { workflowId: uniqueWorkflowId('rewind-team-before') });
    expect(await first.result()).toMatchObject({ status: 'completed', steps: 4 });
    const child = `${first.workflowId}/${first.firstExecutionRunId}/research-1`;
    const kept = await execution(child);
    expect(kept.parent).toEqual({ workflowId: first.workflowId, runId: first.firstExecutionRunId });

    const before = h.stub.requests.length;
    const out = await rewindRun(h.client, first.workflowId, { toStep: 2, yes: true });
    const again = (await h.client.workflow.getHandle(first.workflowId, out.runId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'completed', steps: 4 });
    expect(h.stub.requests.slice(before).map((q) => q.agent)).toEqual(['searcher', 'writer']);
    const rerun = `${first.workflowId}/${first.firstExecutionRunId}/research-2`;
    expect(await childOf(first.workflowId, out.runId)).toBe(rerun);
    expect((await execution(rerun)).parent).toEqual({ workflowId: first.workflowId, runId: out.runId });
    // the base run's child is not joined nor started again
    expect(await execution(child)).toEqual(kept);
  });

  test('a running parent: its child in flight is cancelled, and the team that runs again takes a child id nobody used', async () => {
    h.stub.script('searcher', [{ hang: true }, { text: 'found it' }]);
    const first = await h.start(graph, { workflowId: uniqueWorkflowId('rewind-team-running') });
    const child = `${first.workflowId}/${first.firstExecutionRunId}/research-1`;
    await waitForStatus(h.client.workflow.getHandle(child), (s) => s.inFlight.includes('searcher'));
    const kept = await execution(child);

    const out = await rewindRun(h.client, first.workflowId, { toStep: 1, yes: true });
    // Temporal's reset applies no parent close policy: troupe rewind cancels the child itself
    expect(((await h.client.workflow.getHandle(child).result()) as RunResult).status).toBe('cancelled');
    const again = (await h.client.workflow.getHandle(first.workflowId, out.runId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'completed', steps: 4 });
    const rerun = `${first.workflowId}/${first.firstExecutionRunId}/research-2`;
    expect(await childOf(first.workflowId, out.runId)).toBe(rerun);
    expect((await execution(rerun)).parent).toEqual({ workflowId: first.workflowId, runId: out.runId });
    expect(((await h.client.workflow.getHandle(rerun).result()) as RunResult).finalText).toBe('found it');
    expect(await execution(child)).toEqual(kept);
  });
});
