/**
 * The team examples with no API key: examples/triage-swarm.yaml and examples/selector-team.yaml run
 * by the real workflow and activities against the built-in offline model over HTTP, each to the end
 * its file intends (docs/teams.md). The swarm's transfer to the user waits for a human, durably, and
 * the answer goes back to the agent that asked.
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
import { waitForStatus } from '../helpers/runs';
import { connectClient, startWorker, uniqueWorkflowId, type RunningWorker, type TestClient } from '../helpers/temporal';

const example = (file: string) => {
  const at = path.resolve(__dirname, '../../examples', file);
  const loaded = loadRoleConfig(readFileSync(at, 'utf8'), at);
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

  async function start(file: string, id: string): Promise<WorkflowHandle> {
    const graph = example(file);
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
});
