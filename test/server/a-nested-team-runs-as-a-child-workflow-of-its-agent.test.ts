/**
 * Nested teams (docs/teams.md, "Nested teams"), through the real workflow, worker and HTTP stub: a
 * team agent runs its role as a Temporal child workflow `<parent id>/<parent run id>/<agent>-<n>`; its finalText is
 * the agent's result and its usage counts in the parent's; a child that fails fails the parent,
 * naming the agent; cancelling the parent cancels the child; a child's approval is answered through
 * the parent's id with the CLI; a continued parent (docs/semantics.md, "Teams that go on") starts its
 * team agent's next child run from the previous child's team state.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import type { CompiledGraph } from '../../src/core/graph/types';
import type { RunResult } from '../../src/core/ending/result';
import type { TranscriptStep } from '../../src/core/state/state';
import { defaultPayloadConverter } from '@temporalio/client';
import { startRun } from '../../src/client';
import { transcriptQuery, type RunInput } from '../../src/contract';
import { troupe } from '../helpers/cli';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';

const RESEARCH = (extra = '') => `
name: research-team
agents:
  searcher: { instructions: "Search." }
  summarizer: { instructions: "Summarize." }
collaboration:
  topology: pipeline
  agents: [searcher, summarizer]
${extra}`;

const PARENT = `
name: report
agents:
  research: { description: Researches the question, team: ./research-team.yaml }
  writer: { instructions: "Write the report." }
collaboration:
  topology: pipeline
  agents: [research, writer]
`;

describe('a nested team', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness();
    process.env.TROUPE_TASK_QUEUE = h.worker.taskQueue;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-nested-'));
  });
  afterAll(async () => {
    delete process.env.TROUPE_TASK_QUEUE;
    fs.rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });
  beforeEach(() => h.stub.reset());

  /** The parent's graph, loaded through the file loader with the team file beside it. */
  function load(team: string, parent = PARENT): CompiledGraph {
    fs.writeFileSync(path.join(dir, 'research-team.yaml'), team);
    fs.writeFileSync(path.join(dir, 'role.yaml'), parent);
    const r = loadRoleFile(path.join(dir, 'role.yaml'));
    expect(r.errors).toEqual([]);
    return r.graph!;
  }

  test('completes as a child workflow: its finalText flows on, its usage counts in the parent, the UI links them', async () => {
    const handle = await h.start(load(RESEARCH()), { task: 'Is tea good?' });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'writer reply 1' });
    expect(h.stub.requestsFor('searcher')[0].prompt).toContain('Is tea good?');
    expect(h.stub.requestsFor('writer')[0].prompt).toContain('summarizer reply 1');
    // three model calls in all, two of them the team's
    expect(r.usage.agentCalls).toBe(3);
    expect(r.usage.llmRequests).toBe(3);
    expect(r.usage.byAgent.research.calls).toBe(1);
    expect(r.usage.totalTokens).toBe(r.usage.byAgent.research.totalTokens + r.usage.byAgent.writer.totalTokens);
    expect(r.usage.byAgent.research.totalTokens).toBeGreaterThan(0);

    const childId = `${handle.workflowId}/${handle.firstExecutionRunId}/research-1`;
    const child = h.client.workflow.getHandle(childId);
    const described = await child.describe();
    expect(described.type).toBe('troupeRun');
    expect(described.parentExecution?.workflowId).toBe(handle.workflowId);
    expect(described.taskQueue).toBe(h.worker.taskQueue);
    // started as a run is started: its own graph in its memo and its summary
    expect(described.memo).toMatchObject({ troupeGraph: 'research-team' });
    const childResult = (await child.result()) as RunResult;
    expect(childResult).toMatchObject({ status: 'completed', finalText: 'summarizer reply 1' });
    expect(r.usage.byAgent.research.totalTokens).toBe(childResult.usage.totalTokens);
    const steps: TranscriptStep[] = await handle.query(transcriptQuery);
    expect(steps.find((s) => s.agent === 'research')?.team).toBe(childId);
  });

  test('that fails fails the parent, naming the agent and the child', async () => {
    h.stub.script('summarizer', [{ status: 400, errorMessage: 'bad request' }]);
    const handle = await h.start(load(RESEARCH()));
    const r = await handle.result();
    expect(r.status).toBe('failed');
    expect(r.reason).toBe('team_failed');
    expect(r.reasonText).toContain('team agent research ended failed');
    expect(r.reasonText).toContain(`${handle.workflowId}/${handle.firstExecutionRunId}/research-1`);
    expect(h.stub.hits('writer')).toBe(0);
  });

  test('is cancelled with its parent', async () => {
    h.stub.script('searcher', [{ hang: true }]);
    const handle = await h.start(load(RESEARCH()));
    const status = await waitForStatus(handle, (s) => (s.children?.length ?? 0) > 0);
    expect(status.children).toEqual([{ agent: 'research', workflowId: `${handle.workflowId}/${handle.firstExecutionRunId}/research-1` }]);
    const child = h.client.workflow.getHandle(`${handle.workflowId}/${handle.firstExecutionRunId}/research-1`);
    await waitForStatus(child, (s) => s.inFlight.includes('searcher'));
    await handle.cancel();
    const r = await handle.result();
    expect(r.status).toBe('cancelled');
    const childResult = (await child.result()) as RunResult;
    expect(childResult.status).toBe('cancelled');
  });

  test("stops with its parent's stop", async () => {
    h.stub.script('searcher', [{ delayMs: 1500 }]);
    const handle = await h.start(load(RESEARCH()));
    await waitForStatus(handle, (s) => (s.children?.length ?? 0) > 0);
    const child = h.client.workflow.getHandle(`${handle.workflowId}/${handle.firstExecutionRunId}/research-1`);
    await waitForStatus(child, (s) => s.inFlight.includes('searcher'));
    expect((await troupe('stop', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'cancelled', reason: 'user_stop' });
    expect(((await child.result()) as RunResult).reason).toBe('user_stop');
    expect(h.stub.hits('summarizer')).toBe(0);
  });

  test("is cancelled by the parent's round timeout_ms like any call in flight", async () => {
    h.stub.script('searcher', [{ hang: true }]);
    const parent = PARENT + '  termination: { any_of: [ { timeout_ms: 800 } ] }\n';
    const handle = await h.start(load(RESEARCH(), parent));
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'timeout' });
    expect(((await h.client.workflow.getHandle(`${handle.workflowId}/${handle.firstExecutionRunId}/research-1`).result()) as RunResult).status).toBe('cancelled');
    expect(h.stub.hits('writer')).toBe(0);
  });

  test("pauses and resumes with its parent", async () => {
    h.stub.script('searcher', [{ delayMs: 1000 }]);
    const handle = await h.start(load(RESEARCH()));
    await waitForStatus(handle, (s) => (s.children?.length ?? 0) > 0);
    const child = h.client.workflow.getHandle(`${handle.workflowId}/${handle.firstExecutionRunId}/research-1`);
    expect((await troupe('pause', handle.workflowId)).code).toBe(0);
    await waitForStatus(child, (s) => s.phase === 'paused');
    // the child holds its next wave while paused
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.stub.hits('summarizer')).toBe(0);
    expect((await troupe('resume', handle.workflowId)).code).toBe(0);
    expect(await handle.result()).toMatchObject({ status: 'completed', finalText: 'writer reply 1' });
  });

  test("starts with the parent's remaining budgets as its caps", async () => {
    const parent = PARENT.replace('agents: [research, writer]', 'agents: [intro, research, writer]').replace(
      '  writer:',
      '  intro: { instructions: "Introduce." }\n  writer:',
    ) + 'budget: { max_agent_calls: 3 }\n';
    const team = RESEARCH().replace('agents: [searcher, summarizer]', 'agents: [searcher, summarizer, checker]').replace(
      '  summarizer:',
      '  checker: { instructions: "Check." }\n  summarizer:',
    );
    const handle = await h.start(load(team, parent));
    const r = await handle.result();
    // one call spent by intro leaves the team two: it stops before its checker
    const child = (await h.client.workflow.getHandle(`${handle.workflowId}/${handle.firstExecutionRunId}/research-1`).result()) as RunResult;
    expect(child).toMatchObject({ status: 'budget_exceeded', reason: 'max_turns_exceeded' });
    expect(child.usage.agentCalls).toBe(2);
    expect(h.stub.hits('checker')).toBe(0);
    expect(r).toMatchObject({ status: 'failed', reason: 'team_failed' });
    expect(r.usage.agentCalls).toBe(3);
  });

  test("a child's approval shows in the parent's status and is answered through the parent's id", async () => {
    const handle = await h.start(load(RESEARCH('approval: { before_exit: true }\n')));
    const childId = `${handle.workflowId}/${handle.firstExecutionRunId}/research-1`;
    const child = h.client.workflow.getHandle(childId);
    await waitForStatus(child, (s) => s.pending.length > 0);
    // troupe list finds the child waiting for a human, as any run
    expect((await troupe('list', '--waiting')).stdout).toContain(childId);
    const shown = await troupe('status', handle.workflowId);
    expect(shown.stdout).toContain(childId);
    expect(shown.stdout).toContain('r1');
    const approved = await troupe('approve', handle.workflowId);
    expect(approved.code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'writer reply 1' });
    expect(((await child.result()) as RunResult).status).toBe('completed');
  });

  test("a continued parent carries its team agent's context: the next child run goes on from the previous child's team state", async () => {
    const CHAT_TEAM = `
name: research-team
agents:
  searcher: { instructions: "Search." }
  summarizer: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [searcher, summarizer]
  termination: { any_of: [{ max_messages: 2 }] }
`;
    const graph = load(CHAT_TEAM);
    h.stub.script('searcher', [{ text: 'found: tea has catechins' }, { text: 'found: coffee has more caffeine' }]);
    const first = await h.start(graph, { task: 'Is tea good?' });
    const r1 = await first.result();
    expect(r1).toMatchObject({ status: 'completed' });
    const childState = r1.teamState!.contexts.research.team!;
    expect(childState.thread.map((e) => e.agent)).toEqual(['user', 'searcher', 'summarizer']);
    expect(childState.cursor).toEqual({ kind: 'wave', wave: [expect.objectContaining({ agent: 'searcher' })] });

    const before = h.stub.requests.length;
    const second = await startRun(h.client, { role: graph, task: 'And coffee?', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue });
    const r2 = await second.result();
    expect(r2).toMatchObject({ status: 'completed' });
    const childId = `${second.workflowId}/${second.firstExecutionRunId}/research-1`;
    const history = await h.client.workflow.getHandle(childId).fetchHistory();
    const [input] = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!.map((p) => defaultPayloadConverter.fromPayload<RunInput>(p));
    expect(input.teamState).toEqual(childState);
    // the child's first dispatch is its cursor's, with the previous child's thread before the new task
    const asked = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(asked.map((q) => q.agent)).toEqual(['searcher', 'summarizer', 'writer']);
    const prompt = asked[0].prompt;
    // (the new task heads the prompt as its task, and closes the thread as its last entry)
    const order = ['Is tea good?', 'found: tea has catechins', 'summarizer reply 1', 'And coffee?'].map((t) => prompt.lastIndexOf(t));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // the parent's next child state is the continued child's: its thread goes on
    expect(r2.teamState!.contexts.research.team!.thread.map((e) => e.agent)).toEqual(['user', 'searcher', 'summarizer', 'user', 'searcher', 'summarizer']);
  });
});
