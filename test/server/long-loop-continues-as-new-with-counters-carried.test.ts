import type { DevServer } from '../../src/dev/temporal-server';
import { startHarness, type Harness } from '../helpers/runs';
import { startDedicatedServer } from '../helpers/temporal';
import { followRun, type FollowEvent } from '../../src/client';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import type { TranscriptStep } from '../../src/core/state/state';
import { transcriptQuery } from '../../src/contract';
import { PROGRESS_RECORD_KEY, type ProgressRecord } from '../../src/core/observe/progress';

describe('continue-as-new', () => {
  let server: DevServer;
  let h: Harness;
  beforeAll(async () => {
    server = await startDedicatedServer({ 'limit.historyCount.suggestContinueAsNew': 40 });
    h = await startHarness({ address: server.address });
  });
  afterAll(async () => {
    await h?.close();
    await server?.stop();
  });

  test('a loop long enough to continue-as-new ends correctly with counters carried over', async () => {
    let n = 0;
    h.stub.respond((req) => (req.agent === 'critic' ? { text: `critique ${++n}` } : undefined));
    const handle = await h.start(`
name: long
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 12
  termination:
    any_of:
      - max_iterations: 12
`);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(result.iterations).toEqual({ 'critic,writer': 12 });
    expect(result.steps).toBe(24);
    expect(result.usage.agentCalls).toBe(24);
    expect(result.results.critic.count).toBe(12);
    expect(h.stub.hits('writer')).toBe(12);
    expect(h.stub.hits('critic')).toBe(12);

    const first = h.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    const description = await first.describe();
    expect(description.status.name).toBe('CONTINUED_AS_NEW');
    // every later run stays small: no history grows past a few times the threshold
    const latest = await h.client.workflow.getHandle(handle.workflowId).describe();
    expect(latest.historyLength).toBeLessThan(120);
  });

  test('a follower keeps following across continue-as-new: every step, each new run, then the result', async () => {
    h.stub.reset();
    const handle = await h.start(`
name: long-followed
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 12
  termination:
    any_of:
      - max_iterations: 12
`);
    const events: FollowEvent[] = [];
    const result = await followRun(handle, (e) => events.push(e));
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 24 });
    const steps = events.flatMap((e) => (e.kind === 'step' ? [e.step.step] : []));
    expect(steps).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const runs = events.flatMap((e) => (e.kind === 'started' ? [e.runId] : []));
    expect(runs.length).toBeGreaterThan(1);
    expect(new Set(runs).size).toBe(runs.length);
    expect(events.find((e) => e.kind === 'started')).toMatchObject({ graph: { name: 'long-followed', maxIterations: 12 } });

    // the follower asked once (the \`follow\` Update, in the first run); the runs after it wrote
    // progress records from their start, since the flag is carried (core/observe/progress.ts)
    const histories = await Promise.all(runs.map((runId) => h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory()));
    const follows = histories.map((hist) => (hist.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length);
    expect(follows).toEqual(runs.map((_, i) => (i === 0 ? 1 : 0)));
    const recordsOf = (hist: (typeof histories)[number]) =>
      (hist.events ?? []).flatMap((e) => {
        const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PROGRESS_RECORD_KEY];
        return field?.data && field.data.length > 0 ? [JSON.parse(Buffer.from(field.data).toString('utf8')) as ProgressRecord] : [];
      });
    for (const hist of histories.slice(1)) expect(recordsOf(hist).length).toBeGreaterThan(0);

    // a follower of the last run alone joins after its records began (they follow on from the run
    // before it): it asks the progress query once, and gets the steps the last run carried as well
    const last = recordsOf(histories[histories.length - 1]);
    expect(last[0].from).toBeGreaterThan(0);
    const joined: number[] = [];
    await followRun(h.client.workflow.getHandle(handle.workflowId), (e) => e.kind === 'step' && joined.push(e.step.step));
    expect(joined[0]).toBeLessThanOrEqual(last[0].from);
    expect(joined).toEqual(Array.from({ length: 24 - joined[0] + 1 }, (_, i) => joined[0] + i));
  });

  test("a team agent's child ids carry the run id of the execution that starts them, and never repeat across continue-as-new", async () => {
    h.stub.reset();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-can-team-'));
    try {
      fs.writeFileSync(path.join(dir, 'team.yaml'), 'name: research-team\nagents:\n  searcher: { instructions: "Search." }\ncollaboration:\n  topology: pipeline\n  agents: [searcher]\n');
      fs.writeFileSync(
        path.join(dir, 'role.yaml'),
        'name: long-team\nagents:\n  research: { description: Researches, team: ./team.yaml }\n  critic: { instructions: "Critique." }\n' +
          'collaboration:\n  topology: review-loop\n  agents: [research, critic]\n  max_iterations: 8\n  termination:\n    any_of:\n      - max_iterations: 8\n',
      );
      const loaded = loadRoleFile(path.join(dir, 'role.yaml'));
      expect(loaded.errors).toEqual([]);
      const handle = await h.start(loaded.graph!);
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 16 });
      const steps: TranscriptStep[] = await h.client.workflow.getHandle(handle.workflowId).query(transcriptQuery);
      const ids = steps.flatMap((s) => (s.team ? [s.team] : []));
      expect(ids).toHaveLength(8);
      const parts = ids.map((id) => /^(.*)\/([^/]+)\/research-(\d+)$/.exec(id));
      expect(parts.map((m) => m?.[1])).toEqual(ids.map(() => handle.workflowId));
      expect(parts.map((m) => Number(m?.[3]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // the run continued as new: later children name a later execution, each the one that started it
      const runIds = parts.map((m) => m![2]);
      expect(runIds[0]).toBe(handle.firstExecutionRunId);
      expect(new Set(runIds).size).toBeGreaterThan(1);
      for (const [i, id] of ids.entries()) {
        const parent = (await h.client.workflow.getHandle(id).describe()).parentExecution;
        expect(parent).toEqual({ workflowId: handle.workflowId, runId: runIds[i] });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
