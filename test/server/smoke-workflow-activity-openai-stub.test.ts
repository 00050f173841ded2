/**
 * End-to-end smoke test of the test chain: real Temporal dev server → real Worker → activity →
 * `openai` package over HTTP → stub server. If this fails, no other server test can be trusted.
 */
import { connectClient, startWorker, uniqueWorkflowId, type RunningWorker, type TestClient } from '../helpers/temporal';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { createSmokeActivities } from '../fixtures/smoke-activities';
import { smokeWorkflow } from '../fixtures/smoke-workflow';

const workflowsPath = require.resolve('../fixtures/smoke-workflow');

describe('smoke: workflow → activity → openai package → HTTP stub', () => {
  let stub: StubLlm;
  let tc: TestClient;
  let worker: RunningWorker;

  beforeAll(async () => {
    stub = await startStubLlm();
    tc = await connectClient();
    worker = await startWorker({ workflowsPath, activities: createSmokeActivities(stub.url) });
  });

  afterAll(async () => {
    await worker?.stop();
    await tc?.close();
    await stub?.close();
  });

  afterEach(() => stub.reset());

  test('the workflow returns the text the stub sent, and the stub saw the request', async () => {
    stub.script('smoke-agent', [{ text: 'hello from the stub', usage: { prompt_tokens: 7, completion_tokens: 4 } }]);
    const workflowId = uniqueWorkflowId('smoke');

    const reply = await tc.client.workflow.execute(smokeWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId,
      args: ['smoke-agent', 'ping from the workflow'],
    });

    expect(reply).toEqual({ text: 'hello from the stub', requestId: stub.requests[0]?.id, totalTokens: 11 });
    expect(stub.hits('smoke-agent')).toBe(1);
    const [req] = stub.requestsFor('smoke-agent');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.model).toBe('smoke-model');
    expect(req.messages).toEqual([{ role: 'user', content: 'ping from the workflow' }]);
    expect(req.aborted).toBe(false);

    const history = await tc.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    expect(events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events.some((e) => e.workflowExecutionCompletedEventAttributes)).toBe(true);
  });

  test('a 500 from the stub is retried by Temporal, not by the openai client', async () => {
    stub.script('flaky-agent', [{ status: 500 }, { text: 'second attempt worked' }]);

    const reply = await tc.client.workflow.execute(smokeWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId: uniqueWorkflowId('smoke-retry'),
      args: ['flaky-agent', 'ping'],
    });

    expect(reply.text).toBe('second attempt worked');
    expect(stub.requestsFor('flaky-agent').map((r) => r.status)).toEqual([500, 200]);
  });
});
