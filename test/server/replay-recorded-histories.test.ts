/**
 * Determinism guard: histories of real runs replay against the current workflow bundle. Histories
 * recorded by this release's code (test/fixtures/histories/v<major.minor>/, written by running this
 * file with `TROUPE_RECORD_HISTORIES=1`) replay too, so a workflow change that would break runs
 * already in flight on this release's build fails here. Runs of older releases finish on their own
 * pinned worker build (docs/versioning.md), so their folders go with those builds.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../src/config-file';
import type { CompiledGraph } from '../../src/core/graph/types';
import type { WorkflowHandle } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { compileYaml, startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { startRun } from '../../src/client';
import { rewindRun } from '../../src/rewind/rewind';
import { replayHistory, testAddress } from '../helpers/temporal';
import { TROUPE_RELEASE } from '../../src/core/state/release';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'histories');
/** Where this release's histories are recorded: `v0.3` for 0.3.x. */
const CURRENT = path.join(FIXTURES, `v${TROUPE_RELEASE.split('.').slice(0, 2).join('.')}`);

/**
 * A scenario: its role (`team`: the file `./team.yaml` its role names, loaded through the file
 * loader), the stub's script, and what a user does while it runs.
 */
const SCENARIOS: Record<string, { yaml: string; team?: string; script: (h: Harness) => void; drive?: (handle: WorkflowHandle) => Promise<void>; start?: (h: Harness, graph: CompiledGraph) => Promise<WorkflowHandle> }> = {
  'goal-approval-signals': {
    yaml: `
name: replay-goal
agents:
  worker: { instructions: "Work.", tools: [goal, signal] }
collaboration:
  topology: pipeline
  agents: [worker]
goal:
  objective: "finish"
  max_turns: 3
approval:
  before_exit: true
`,
    script: (h) =>
      h.stub.script('worker', [
        { text: 'step 1' },
        { toolCalls: [{ name: 'goal', arguments: { action: 'update_status', status: 'completed', evidence: 'done' } }] },
        { text: 'done' },
      ]),
    drive: async (handle) => {
      await handle.signal('message', { text: 'hurry' });
      // gates: each decision names the digest its request shows
      const first = await waitForStatus(handle, (s) => s.pending.some((p) => p.id === 'r1'));
      await handle.signal('reject', { reason: 'add evidence', digest: first.pending[0].digest });
      const second = await waitForStatus(handle, (s) => s.pending.some((p) => p.id === 'r2'));
      await handle.signal('approve', { digest: second.pending[0].digest });
    },
  },
  'review-loop-score': {
    yaml: `
name: replay-loop
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - converged: critic
      - max_iterations: 5
`,
    script: (h) => {
      h.stub.script('critic', [{ text: 'score: 50' }, { text: 'score: 90' }]);
      h.stub.script('judge:critic', [{ text: '{"converged": false, "reason": "no"}' }]);
    },
  },
  'star-parallel': {
    yaml: `
name: replay-star
agents:
  a: { instructions: "A." }
  b: { instructions: "B." }
  c: { instructions: "C." }
collaboration:
  topology: star
  agents: [a, b, c]
`,
    script: () => undefined,
  },
  'flow-join-failure': {
    yaml: `
name: replay-join
agents:
  scanner: { instructions: "S." }
  parser: { instructions: "P." }
  analyzer: { instructions: "A." }
collaboration:
  flow: ["parent -> scanner", "parent -> parser", "scanner -> analyzer", "parser -> analyzer", "analyzer -> parent"]
`,
    script: (h) => h.stub.script('analyzer', [{ status: 401 }]),
  },
  'open-request-then-condition': {
    yaml: `
name: replay-held
agents:
  writer: { instructions: "Write.", model: { name: gpt-4o-mini, base_url: "\${STUB_URL}" } }
  publisher: { instructions: "Publish.", tools: [signal] }
collaboration:
  topology: review-loop
  agents: [writer, publisher]
  max_iterations: 3
  termination:
    any_of:
      - max_messages: 2
      - result_matches: { agent: publisher, regex: "^Verdict: ship$", flags: m }
`,
    script: (h) =>
      h.stub.script('publisher', [
        { toolCalls: [{ name: 'signal', arguments: { type: 'need_approval', summary: 'publish?' } }] },
        { text: 'Notes.\nVerdict: hold\n' },
      ]),
    drive: async (handle) => {
      await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
      await handle.signal('approve', { note: 'go' });
    },
  },
  'swarm-handoffs-and-user': {
    yaml: `
name: replay-swarm
agents:
  triage: { instructions: "Route.", handoffs: [billing, user] }
  billing: { instructions: "Bill.", handoffs: [triage] }
collaboration:
  topology: swarm
  agents: [triage, billing]
  max_turns: 4
  termination: { any_of: [{ text_mention: REFUNDED }] }
`,
    script: (h) => {
      h.stub.script('triage', [{ toolCalls: [{ name: 'transfer_to_user', arguments: { message: 'which invoice?' } }] }, { toolCalls: [{ name: 'transfer_to_billing', arguments: {} }] }]);
      h.stub.script('billing', [{ text: 'REFUNDED invoice 42' }]);
    },
    drive: async (handle) => {
      await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
      await handle.signal('answer', { text: 'invoice 42' });
    },
  },
  'selector-team': {
    yaml: `
name: replay-selector
agents:
  planner: { description: Plans, instructions: "Plan." }
  coder: { description: Codes, instructions: "Code." }
collaboration:
  topology: selector
  agents: [planner, coder]
  termination: { any_of: [{ max_messages: 3 }] }
`,
    script: (h) => h.stub.script('selector:team', [{ text: 'someone' }, { text: 'coder' }]),
  },
  'goal-paused-then-resumed': {
    yaml: `
name: replay-goal-pause
agents:
  worker: { instructions: "Work.", tools: [goal] }
collaboration:
  topology: pipeline
  agents: [worker]
goal:
  objective: "finish"
  max_turns: 2
`,
    script: (h) =>
      h.stub.script('worker', [
        { toolCalls: [{ name: 'goal', arguments: { action: 'update_status', status: 'paused', reason: 'wait' } }] },
        { text: 'paused' },
        { toolCalls: [{ name: 'goal', arguments: { action: 'update_status', status: 'completed', evidence: 'done' } }] },
        { text: 'done' },
      ]),
    drive: async (handle) => {
      await waitForStatus(handle, (s) => s.phase === 'paused');
      await handle.signal('resume', {});
    },
  },
  'nested-team': {
    yaml: `
name: replay-nested
agents:
  research: { description: Researches, team: ./team.yaml }
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [research, writer]
`,
    team: `
name: replay-research
agents:
  searcher: { instructions: "Search." }
  summarizer: { instructions: "Summarize." }
collaboration:
  topology: pipeline
  agents: [searcher, summarizer]
`,
    script: (h) => h.stub.script('searcher', [{ delayMs: 1500 }]),
    drive: async (handle) => {
      // a pause and a resume sent to the parent are forwarded to its child run
      await waitForStatus(handle, (s) => (s.children?.length ?? 0) > 0);
      await handle.signal('pause', {});
      await waitForStatus(handle, (s) => s.phase === 'paused');
      await handle.signal('resume', {});
    },
  },
  'continued-round-robin': {
    yaml: `
name: replay-continued
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
collaboration:
  topology: round-robin
  agents: [alice, bob]
  termination:
    any_of:
      - text_mention: DONE
      - max_messages: 3
`,
    script: (h) => h.stub.script('bob', [{ text: 'bob reply 1 DONE' }, {}]),
    // the recorded run is the second of a thread: it starts from the first run's team state (docs/semantics.md, "Teams that go on")
    start: async (h, graph) => {
      const first = await h.start(graph);
      await first.result();
      return startRun(h.client, { role: graph, task: 'go on', continueFrom: first.workflowId, taskQueue: h.worker.taskQueue });
    },
  },
  'rewound-pipeline': {
    yaml: `
name: replay-rewound
agents:
  drafter: { instructions: "Draft." }
  editor: { instructions: "Edit." }
  publisher: { instructions: "Publish." }
collaboration:
  topology: pipeline
  agents: [drafter, editor, publisher]
`,
    script: () => undefined,
    // the recorded run is a reset's: the first run rewound to after step 1 (docs/cli.md, "troupe rewind")
    start: (h, graph) => rewound(h, graph, 1),
  },
  'rewound-nested-team': {
    yaml: `
name: replay-rewound-nested
agents:
  intro: { instructions: "Introduce." }
  research: { description: Researches, team: ./team.yaml }
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [intro, research, writer]
`,
    team: `
name: replay-rewound-research
agents:
  searcher: { instructions: "Search." }
collaboration:
  topology: pipeline
  agents: [searcher]
`,
    script: () => undefined,
    // rewound to after the team's step: the reset run replays its child start, then runs the writer again
    start: (h, graph) => rewound(h, graph, 2),
  },
};

/** A handle on the new run of a finished run of `graph` rewound (a replay: Temporal's reset) to after step `step`. */
async function rewound(h: Harness, graph: CompiledGraph, step: number): Promise<WorkflowHandle> {
  const first = await h.start(graph);
  await first.result();
  const out = await rewindRun(h.client, first.workflowId, { toStep: step, yes: true });
  return h.client.workflow.getHandle(first.workflowId, out.runId);
}

/** The scenario's graph: compiled from its YAML, or loaded from files when it has a team file. */
function graphOf(name: string, h: Harness): string | CompiledGraph {
  const { yaml, team } = SCENARIOS[name];
  const text = yaml.replace('${STUB_URL}', h.stub.url);
  if (team === undefined) return text;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-replay-'));
  fs.writeFileSync(path.join(dir, 'team.yaml'), team);
  fs.writeFileSync(path.join(dir, 'role.yaml'), text);
  const loaded = loadRoleFile(path.join(dir, 'role.yaml'));
  fs.rmSync(dir, { recursive: true, force: true });
  if (!loaded.graph) throw new Error(loaded.errors.map((e) => e.message).join('; '));
  return loaded.graph;
}

describe('replay of recorded histories', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test.each(Object.keys(SCENARIOS))('a fresh %s history replays deterministically', async (name) => {
    h.stub.reset();
    SCENARIOS[name].script(h);
    const graph = graphOf(name, h);
    const start = SCENARIOS[name].start;
    const handle = start ? await start(h, typeof graph === 'string' ? compileYaml(graph) : graph) : await h.start(graph);
    await SCENARIOS[name].drive?.(handle);
    await handle.result();
    const history = await handle.fetchHistory();
    await replayHistory(history, handle.workflowId);
    if (process.env.TROUPE_RECORD_HISTORIES) {
      fs.mkdirSync(CURRENT, { recursive: true });
      // the CLI's JSON is Temporal's standard history format (the one users export from the Web UI)
      const json = execFileSync(process.env.TEMPORAL_TEST_CLI!, [
        'workflow', 'show', '--workflow-id', handle.workflowId, '--address', testAddress(), '--output', 'json',
      ]);
      fs.writeFileSync(path.join(CURRENT, `${name}.json`), json);
    }
  });

  const versions = fs.readdirSync(FIXTURES).filter((d) => fs.statSync(path.join(FIXTURES, d)).isDirectory());
  const recorded = versions.flatMap((v) => fs.readdirSync(path.join(FIXTURES, v)).filter((f) => f.endsWith('.json')).map((f) => path.join(v, f)));
  test('this release has a recorded history of every scenario', () => {
    expect(versions).toContain(path.basename(CURRENT));
    const current = recorded.filter((f) => f.startsWith(`${path.basename(CURRENT)}${path.sep}`)).map((f) => path.basename(f, '.json'));
    expect(current).toEqual(expect.arrayContaining(Object.keys(SCENARIOS)));
  });
  if (recorded.length > 0) test.each(recorded)('committed history %s replays against the current workflow code', async (file) => {
    const history = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as { events?: Array<{ workflowExecutionStartedEventAttributes?: { workflowId?: string } }> };
    // replayed under the id it ran with: a team agent's child id is made from it (docs/teams.md, "Nested teams")
    const recordedId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
    await replayHistory(history, recordedId ?? path.basename(file).replace(/\.json$/, ''));
  });
});
