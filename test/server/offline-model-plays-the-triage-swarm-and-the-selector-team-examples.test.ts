/**
 * The team examples with no API key: examples/triage-swarm.yaml and examples/selector-team.yaml run
 * by the real workflow and activities against the built-in offline model over HTTP, each to the end
 * its file intends (docs/teams.md). The swarm's transfer to the user waits for a human, durably, and
 * the answer goes back to the agent that asked. Continued (docs/semantics.md, "Teams that go on"),
 * the round-robin example goes on from its cursor on the new task, the swarm's specialist takes a
 * follow-up, and a swarm ended at its question takes the new task as the answer.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { createActivities } from '../../src/activities';
import { formatIssue, loadRoleConfig } from '../../src/core/config/load';
import type { RunResult } from '../../src/core/ending/result';
import type { TranscriptStep } from '../../src/core/state/state';
import { startOfflineModel, type OfflineModel } from '../../src/dev/offline-model';
import { transcriptQuery, WORKFLOW_TYPE } from '../../src/contract';
import { startRun } from '../../src/client';
import type { CompiledGraph } from '../../src/core/graph/types';
import { waitForStatus } from '../helpers/runs';
import { connectClient, startWorker, uniqueWorkflowId, type RunningWorker, type TestClient } from '../helpers/temporal';

const example = (file: string, edit: (yaml: string) => string = (y) => y) => {
  const at = path.resolve(__dirname, '../../examples', file);
  const loaded = loadRoleConfig(edit(readFileSync(at, 'utf8')), at);
  expect(loaded.errors.map(formatIssue)).toEqual([]);
  return loaded.graph!;
};

describe('the team examples with the offline model', () => {
  let offline: OfflineModel;
  let worker: RunningWorker;
  let tc: TestClient;

  beforeAll(async () => {
    offline = await startOfflineModel();
    worker = await startWorker({ activities: createActivities({ baseUrl: offline.url, env: {} }) });
    tc = await connectClient();
  });

  afterAll(async () => {
    await worker?.stop();
    await tc?.close();
    await offline?.close();
  });

  async function start(file: string | CompiledGraph, id: string): Promise<WorkflowHandle> {
    const graph = typeof file === 'string' ? example(file) : file;
    return tc.client.workflow.start(WORKFLOW_TYPE, { taskQueue: worker.taskQueue, workflowId: uniqueWorkflowId(id), args: [{ graph, task: graph.task ?? '' }] });
  }

  test('triage-swarm: triage transfers to billing, billing asks the user, and answers with the answer', async () => {
    const handle = await start('triage-swarm.yaml', 'triage-swarm');
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(waiting.pending).toEqual([expect.objectContaining({ kind: 'handoff', agent: 'billing' })]);
    await handle.signal('answer', { text: 'Invoice INV-0342, two charges of 49 EUR on March 3.' });
    const result: RunResult = await handle.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'text_mention', finalAgent: 'billing' });
    expect(result.usage.handoffs).toBe(2);
    const steps: TranscriptStep[] = await handle.query(transcriptQuery);
    expect(steps.flatMap((s) => (s.handoff ? [`${s.agent}→${s.handoff.to}`] : []))).toEqual(['triage→billing', 'billing→user']);
    expect(steps.at(-1)?.text).toContain('TERMINATE');
  });

  test('selector-team: the selector picks planner, coder, reviewer at the first attempt, and the reviewer approves', async () => {
    const handle = await start('selector-team.yaml', 'selector-team');
    const result: RunResult = await handle.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'text_mention', finalAgent: 'reviewer' });
    const steps: TranscriptStep[] = await handle.query(transcriptQuery);
    expect(steps.map((s) => s.agent)).toEqual(['planner', 'coder', 'reviewer']);
    expect(steps.map((s) => s.selected)).toEqual([{ attempts: 1 }, { attempts: 1 }, { attempts: 1 }]);
    expect(result.usage.selectorCalls).toBe(3);
  });

  /** Continue run `from` with `task`: its result and transcript. */
  async function continued(graph: CompiledGraph, from: string, task: string): Promise<{ result: RunResult; steps: TranscriptStep[] }> {
    const handle = await startRun(tc.client, { role: graph, task, continueFrom: from, taskQueue: worker.taskQueue });
    const result: RunResult = await handle.result();
    return { result, steps: await handle.query(transcriptQuery) };
  }

  test('round-robin continued: the next speaker goes on, on the new task', async () => {
    const graph = example('round-robin.yaml');
    const handle = await start(graph, 'round-robin');
    const first: RunResult = await handle.result();
    expect(first).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 10 });
    expect(first.teamState!.cursor).toMatchObject({ kind: 'wave', wave: [{ agent: 'writer' }] });
    const { result, steps } = await continued(graph, handle.workflowId, 'Now plan the second week of follow-up.');
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 10 });
    expect(steps.map((s) => s.agent).slice(0, 4)).toEqual(['writer', 'skeptic', 'strategist', 'writer']);
    // every turn is on the new task; the writer's drafts go on from the three of the first run
    expect(steps.every((s) => s.text.includes('Now plan the second week of follow-up.'))).toBe(true);
    expect(steps[0].text).toMatch(/^\[offline model\] Draft v4: /);
  });

  test('triage-swarm continued: the specialist that holds the turn takes the follow-up and closes it', async () => {
    const handle = await start('triage-swarm.yaml', 'triage-swarm');
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    await handle.signal('answer', { text: 'Invoice INV-0342, two charges of 49 EUR on March 3.' });
    expect(await handle.result()).toMatchObject({ status: 'completed', reason: 'text_mention' });
    const { result, steps } = await continued(example('triage-swarm.yaml'), handle.workflowId, 'When will the refund reach my card?');
    expect(result).toMatchObject({ status: 'completed', reason: 'text_mention', finalAgent: 'billing' });
    expect(steps.map((s) => s.agent)).toEqual(['billing']);
    expect(steps[0].text).toContain('"When will the refund reach my card?"');
    expect(steps[0].text).toMatch(/\nTERMINATE$/);
  });

  test('triage-swarm ended at its question (handoff: user) continued: the new task answers billing, which closes the work', async () => {
    const graph = example('triage-swarm.yaml', (y) => y.replace('      - max_messages: 8', '      - max_messages: 8\n      - handoff: user'));
    const handle = await start(graph, 'triage-swarm');
    expect(await handle.result()).toMatchObject({ status: 'completed', reason: 'handoff' });
    const { result, steps } = await continued(graph, handle.workflowId, 'Invoice INV-0342, two charges of 49 EUR on March 3.');
    expect(result).toMatchObject({ status: 'completed', reason: 'text_mention', finalAgent: 'billing' });
    // billing, not triage, speaks first; it reads the task as the answer to its question, on the first run's request
    expect(steps.map((s) => s.agent)).toEqual(['billing']);
    expect(steps[0].text).toContain('with your answer ("Invoice INV-0342, two charges of 49 EUR on March 3.") I can finish "A customer was charged twice');
    expect(steps[0].text).toMatch(/\nTERMINATE$/);
  });
});
