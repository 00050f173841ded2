/**
 * The demo's main job with no API key: examples/review-loop.yaml run by the real troupe workflow and
 * activities against the built-in offline model over HTTP ends by a real condition, the critic's
 * `score: 90` meeting `score_gte: 85`, after three drafts.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createActivities } from '../../src/activities';
import { formatIssue, loadRoleConfig } from '../../src/core/config/load';
import type { RunResult } from '../../src/core/ending/result';
import { startOfflineModel, type OfflineModel } from '../../src/dev/offline-model';
import { OFFLINE_TEXTS } from '../../src/dev/offline-replies';
import { WORKFLOW_TYPE } from '../../src/contract';
import { connectClient, startWorker, uniqueWorkflowId, type RunningWorker, type TestClient } from '../helpers/temporal';

const EXAMPLE = path.resolve(__dirname, '../../examples/review-loop.yaml');

describe('demo: examples/review-loop.yaml with the offline model', () => {
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

  test('ends completed/result_match on the critic score after three writer and three critic turns', async () => {
    const loaded = loadRoleConfig(readFileSync(EXAMPLE, 'utf8'), EXAMPLE);
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    const graph = loaded.graph!;

    const result: RunResult = await tc.client.workflow.execute(WORKFLOW_TYPE, {
      taskQueue: worker.taskQueue,
      workflowId: uniqueWorkflowId('demo-review-loop'),
      args: [{ graph, task: graph.task ?? '' }],
    });

    expect(result.status).toBe('completed');
    expect(result.reason).toBe('result_match');
    expect(result.finalAgent).toBe('critic');
    expect(result.finalText.startsWith(`${OFFLINE_TEXTS.label} Review of Draft v3.`)).toBe(true);
    expect(result.finalText).toContain('score: 90');
    expect(result.iterations).toEqual({ 'critic,writer': 3 });
  });
});
