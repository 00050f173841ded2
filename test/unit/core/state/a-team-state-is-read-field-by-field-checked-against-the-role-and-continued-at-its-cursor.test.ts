/**
 * A run's team state (docs/semantics.md, "Teams that go on"), pure: taken at a run's end
 * (`teamStateOf`: the thread with the first run's task first, each agent's context, the cursor of
 * each kind), read back as untrusted input (`readTeamState`: the version first, then every field by
 * its path), bounded (`sizeProblem`: naming the largest part), checked against a role
 * (`continuationIssues`), and continued (`continueRunState`: a compaction summary and the part of the
 * thread it covers mapped back to the agent's memory).
 */
import type { CompiledGraph } from '../../../../src/core/graph/types';
import type { ThreadEntry } from '../../../../src/core/prompts/build';
import { createRunState, pushThread, type RunState } from '../../../../src/core/state/state';
import {
  continuationIssues,
  continueRunState,
  keepChildTeamState,
  readTeamState,
  sizeProblem,
  TEAM_STATE_MAX_BYTES,
  TEAM_STATE_TEXTS,
  TEAM_STATE_VERSION,
  teamStateOf,
  teamStateSize,
  type TeamState,
} from '../../../../src/core/state/team-state';
import type { WaveItem } from '../../../../src/core/waves/types';
import { compileYaml } from '../../../helpers/compile';

const PANEL = `
name: panel
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
  carol: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [alice, bob, carol]
  max_iterations: 5
`;
const CREW = `
name: crew
agents:
  alice: { description: Plans, instructions: "Propose." }
  bob: { description: Codes, instructions: "Challenge." }
  carol: { description: Reviews, instructions: "Summarize." }
collaboration:
  topology: selector
  agents: [alice, bob, carol]
  max_turns: 4
`;
const PIPE = `
name: pipe
agents:
  a: { instructions: "A." }
  b: { instructions: "B." }
collaboration:
  topology: pipeline
  agents: [a, b]
`;
const SUPPORT = `
name: support
agents:
  triage: { instructions: "Route.", handoffs: [billing] }
  billing: { instructions: "Bill.", handoffs: [user] }
collaboration:
  topology: swarm
  agents: [triage, billing]
`;

const panel = compileYaml(PANEL);
const END = { status: 'completed', reason: 'text_mention' };

/** A run state at its end: `entries` pushed to its thread, `frontier` its next wave. */
function ended(graph: CompiledGraph, entries: ThreadEntry[], frontier: WaveItem[] = [], task = 'plan a picnic'): RunState {
  const s = createRunState(graph, task, 'wf-1', 0);
  for (const e of entries) pushThread(s, e);
  s.frontier = frontier;
  s.steps = entries.length;
  return s;
}

const said = (agent: string, n: number): ThreadEntry => ({ agent, text: `${agent} reply ${n}` });
const next = (agent: string, from: string): WaveItem[] => [{ agent, triggers: [{ from, text: `${from} said` }] }];
/** The panel's state after alice and bob, carol next. */
const panelState = (): TeamState => teamStateOf(ended(panel, [said('alice', 1), said('bob', 1)], next('carol', 'bob')), panel, END, 'wf-1');

describe('teamStateOf: a run\'s team state at its end', () => {
  test('a first run: the task leads the thread; the role, contexts, thread id, usage and source are filled in', () => {
    const s = ended(panel, [said('alice', 1), said('bob', 1)], next('carol', 'bob'));
    s.memory.alice = { own: ['alice reply 1'] };
    s.notes.carol = [{ kind: 'user_message', text: 'hurry', from: 'user' }];
    s.usage.totalTokens = 30;
    s.usage.llmRequests = 2;
    const ts = teamStateOf(s, panel, END, 'wf-1');
    expect(ts).toMatchObject({
      version: TEAM_STATE_VERSION,
      role: { name: 'panel', agents: ['alice', 'bob', 'carol'], topology: 'round-robin' },
      thread: [{ agent: 'user', kind: 'task', text: 'plan a picnic' }, said('alice', 1), said('bob', 1)],
      contexts: { alice: { own: ['alice reply 1'] }, bob: { own: [] }, carol: { own: [], notes: [{ kind: 'user_message', text: 'hurry', from: 'user' }] } },
      threadId: 'wf-1',
      threadUsage: { totalTokens: 30, llmRequests: 2, runs: 1 },
      source: { runId: 'wf-1', status: 'completed', reason: 'text_mention', steps: 2 },
    });
    expect(Object.keys(ts.role.digests)).toEqual(['alice', 'bob', 'carol']);
  });

  test('a first run whose thread dropped its oldest entries still begins with its task', () => {
    const entries = Array.from({ length: 12 }, (_, i) => said(['alice', 'bob', 'carol'][i % 3], i + 1));
    const ts = teamStateOf(ended(panel, entries, next('alice', 'carol')), panel, END, 'wf-1');
    expect(ts.thread[0]).toEqual({ agent: 'user', kind: 'task', text: 'plan a picnic' });
    expect(ts.thread.slice(1).map((e) => e.text)).toEqual(entries.slice(4).map((e) => e.text));
  });

  test("a continued run whose kept thread holds no task leads with its task, so a continue without a task still has one", () => {
    const s = createRunState(panel, 'and cake', 'wf-1/2', 0);
    continueRunState(s, panel, panelState(), 'and cake');
    for (let i = 1; i <= 9; i++) pushThread(s, said(['carol', 'alice', 'bob'][i % 3], i));
    expect(s.thread.some((e) => e.kind === 'task')).toBe(false);
    const ts = teamStateOf(s, panel, END, 'wf-1/2');
    expect(ts.thread[0]).toEqual({ agent: 'user', kind: 'task', text: 'and cake' });
    expect(ts.thread).toHaveLength(9);
    const next = createRunState(panel, '', 'wf-1/3', 0);
    continueRunState(next, panel, ts, undefined);
    expect(next.task).toBe('and cake');
  });

  test('cursor kinds: the next wave (round-robin, swarm), a selector\'s previous speaker, the entry after an exit', () => {
    expect(panelState().cursor).toEqual({ kind: 'wave', wave: [{ agent: 'carol', triggers: [{ from: 'bob', text: 'bob said' }] }] });
    const support = compileYaml(SUPPORT);
    const asked = ended(support, [{ agent: 'triage', kind: 'handoff', to: 'billing', text: 'twice' }, { agent: 'billing', kind: 'question', to: 'user', text: 'Which?' }], next('billing', 'billing'));
    expect(teamStateOf(asked, support, END, 'wf-1').cursor).toMatchObject({ kind: 'wave', wave: [{ agent: 'billing' }] });
    const crew = compileYaml(CREW);
    const selected = ended(crew, [said('bob', 1)]);
    selected.round.lastWave = ['bob'];
    expect(teamStateOf(selected, crew, END, 'wf-1').cursor).toEqual({ kind: 'select', previous: 'bob' });
    expect(teamStateOf(ended(crew, []), crew, END, 'wf-1').cursor).toEqual({ kind: 'select' });
    const pipe = compileYaml(PIPE);
    expect(teamStateOf(ended(pipe, [said('a', 1), said('b', 1)]), pipe, END, 'wf-1').cursor).toEqual({ kind: 'entry' });
  });

  test('a continued run: its thread holds its tasks as entries, none added; the thread\'s usage adds up', () => {
    const s = createRunState(panel, 'and cake', 'wf-1/2', 0);
    const first = panelState();
    first.threadUsage = { promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0.5, llmRequests: 2, runs: 1 };
    continueRunState(s, panel, first, 'and cake');
    pushThread(s, said('carol', 1));
    s.usage.totalTokens = 7;
    const ts = teamStateOf(s, panel, END, 'wf-1/2');
    expect(ts.thread.map((e) => e.kind ?? e.agent)).toEqual(['task', 'alice', 'bob', 'task', 'carol']);
    expect(ts.threadId).toBe('wf-1');
    expect(ts.threadUsage).toMatchObject({ totalTokens: 22, costUsd: 0.5, runs: 2 });
  });
});

describe('readTeamState: an untrusted document', () => {
  const good = () => JSON.parse(JSON.stringify(panelState())) as Record<string, unknown>;

  test('a team state reads back as itself', () => {
    expect(readTeamState(good())).toEqual({ ok: true, state: panelState() });
  });

  test('the version first: missing, another number, a string; and a document that is no object', () => {
    const without = good();
    delete without.version;
    expect(readTeamState(without)).toEqual({ ok: false, problems: [TEAM_STATE_TEXTS.version(undefined)] });
    expect(readTeamState({ ...good(), version: 2, thread: 'not even read' })).toEqual({ ok: false, problems: [TEAM_STATE_TEXTS.version(2)] });
    expect(readTeamState({ ...good(), version: '1' })).toEqual({ ok: false, problems: [TEAM_STATE_TEXTS.version('1')] });
    expect(TEAM_STATE_TEXTS.version(2)).toMatch(/^version: 2 is not a team state version/);
    for (const doc of [null, [], 'state', 3]) expect(readTeamState(doc)).toEqual({ ok: false, problems: ['(document): must be a JSON object'] });
  });

  test.each(['role', 'thread', 'contexts', 'cursor', 'threadId', 'threadUsage', 'source'])('a wrong type of %s is named by its path', (field) => {
    const r = readTeamState({ ...good(), [field]: 42 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toEqual([expect.stringMatching(new RegExp(`^${field}: `))]);
  });

  test('a missing field, a nested wrong field, an unknown key and a cursor agent not in the team are named', () => {
    const problems = (doc: Record<string, unknown>) => {
      const r = readTeamState(doc);
      return r.ok ? [] : r.problems;
    };
    const missing = good();
    delete missing.threadId;
    expect(problems(missing)).toEqual([expect.stringMatching(/^threadId: /)]);
    const nested = good() as { role: { agents: string[] }; thread: Array<{ kind?: string }>; contexts: Record<string, { summarized?: number }>; threadUsage: { runs: number } };
    nested.role.agents = [];
    nested.thread[1].kind = 'shout';
    nested.contexts.alice.summarized = -1;
    nested.threadUsage.runs = 1.5;
    expect(problems(nested as unknown as Record<string, unknown>)).toEqual([
      expect.stringMatching(/^role\.agents: /),
      expect.stringMatching(/^thread\.1\.kind: /),
      expect.stringMatching(/^contexts\.alice\.summarized: /),
      expect.stringMatching(/^threadUsage\.runs: /),
    ]);
    expect(problems({ ...good(), extra: true })).toEqual([expect.stringMatching(/^\(document\): .*extra/)]);
    expect(problems({ ...good(), cursor: { kind: 'jump' } })).toEqual([expect.stringMatching(/^cursor\.kind: /)]);
    expect(problems({ ...good(), cursor: { kind: 'wave', wave: [] } })).toEqual([expect.stringMatching(/^cursor\.wave: /)]);
    expect(problems({ ...good(), cursor: { kind: 'select', previous: 'mallory' } })).toEqual([TEAM_STATE_TEXTS.cursorAgent('mallory')]);
  });
});

describe('the size bound', () => {
  test('a state within its bound has no problem; over it, the problem names the size and the largest part', () => {
    const ts = panelState();
    expect(sizeProblem(ts)).toBeUndefined();
    ts.contexts.bob.own = ['b'.repeat(5000)];
    const size = teamStateSize(ts);
    expect(size.largest).toEqual({ part: 'contexts.bob', bytes: expect.any(Number) });
    expect(size.bytes).toBe(Buffer.byteLength(JSON.stringify(ts)));
    expect(sizeProblem(ts, 4096)).toBe(TEAM_STATE_TEXTS.tooLarge(size.bytes, 'contexts.bob', size.largest.bytes));
    ts.thread.push({ agent: 'alice', text: 'é'.repeat(TEAM_STATE_MAX_BYTES / 2) });
    expect(sizeProblem(ts)).toMatch(/^the team state takes 10\d\d KiB, over its 1024 KiB bound; its largest part is thread \(10\d\d KiB\)/);
  });

  test("a team agent's child state over a quarter of the bound is not kept, with a warning", () => {
    const s = createRunState(panel, 't', 'wf', 0);
    const child = panelState();
    keepChildTeamState(s, 'alice', child);
    expect(s.teams?.alice).toEqual(child);
    const big = { ...child, thread: [{ agent: 'x', text: 'x'.repeat(TEAM_STATE_MAX_BYTES / 4) }] };
    keepChildTeamState(s, 'alice', big);
    expect(s.teams?.alice).toBeUndefined();
    expect(s.warnings.at(-1)).toBe(TEAM_STATE_TEXTS.teamTooLarge('alice', Buffer.byteLength(JSON.stringify(big))));
  });
});

describe('continuationIssues: a role against a team state', () => {
  test('the same role: nothing to say', () => {
    expect(continuationIssues(panel, panelState())).toEqual({ errors: [], warnings: [] });
  });

  test('missing and extra agents, with did-you-mean for a rename; another topology', () => {
    const renamed = compileYaml(PANEL.replace(/carol/g, 'carl').replace(/bob/g, 'dave'));
    expect(continuationIssues(renamed, panelState()).errors).toEqual([
      TEAM_STATE_TEXTS.missing(['bob', 'carol']),
      TEAM_STATE_TEXTS.extra('dave', ''),
      TEAM_STATE_TEXTS.extra('carl', ' (did you mean "carol"?)'),
    ]);
    expect(continuationIssues(compileYaml(CREW), panelState()).errors).toEqual([TEAM_STATE_TEXTS.topology('round-robin', 'selector')]);
  });

  test('changed agents and a failed or cancelled source are warnings', () => {
    const changed = compileYaml(PANEL.replace('"Propose."', '"Propose boldly."'));
    expect(continuationIssues(changed, panelState())).toEqual({ errors: [], warnings: [TEAM_STATE_TEXTS.changed(['alice'])] });
    for (const status of ['failed', 'cancelled']) {
      const ts = panelState();
      ts.source = { ...ts.source, status, reason: 'fatal_error' };
      expect(continuationIssues(panel, ts).warnings).toEqual([TEAM_STATE_TEXTS.failedSource(status, 'fatal_error')]);
    }
  });
});

describe('continueRunState: a fresh run state at the cursor', () => {
  test('the thread as it was, the task appended, the first wave at the cursor with the task among its triggers', () => {
    const s = createRunState(panel, 'and cake', 'wf-1/2', 0);
    continueRunState(s, panel, panelState(), 'and cake');
    expect(s.thread.map(({ seq: _seq, ...e }) => e)).toEqual([
      { agent: 'user', kind: 'task', text: 'plan a picnic' },
      said('alice', 1),
      said('bob', 1),
      { agent: 'user', kind: 'task', text: 'and cake' },
    ]);
    expect(s.frontier).toEqual([{ agent: 'carol', triggers: [{ from: 'parent', text: 'and cake' }, { from: 'bob', text: 'bob said' }] }]);
    expect(s.continuation).toEqual({ threadId: 'wf-1', from: 'wf-1', before: panelState().threadUsage });
  });

  test('without a task: nothing appended, the last task is the run\'s task', () => {
    const s = createRunState(panel, '', 'wf-1/2', 0);
    continueRunState(s, panel, panelState(), undefined);
    expect(s.thread).toHaveLength(3);
    expect(s.task).toBe('plan a picnic');
  });

  test("the task answers the cursor agent's question when the thread ends with it; else it is a task", () => {
    const support = compileYaml(SUPPORT);
    const asked = teamStateOf(
      ended(support, [{ agent: 'triage', kind: 'handoff', to: 'billing', text: 'twice' }, { agent: 'billing', kind: 'question', to: 'user', text: 'Which?' }], next('billing', 'billing')),
      support,
      END,
      'wf-1',
    );
    const s = createRunState(support, 'INV-1', 'wf-1/2', 0);
    continueRunState(s, support, asked, 'INV-1');
    expect(s.thread.at(-1)).toMatchObject({ agent: 'user', kind: 'answer', to: 'billing', text: 'INV-1' });
    // the work it answers stays the run's task
    expect(s.task).toBe('plan a picnic');
    expect(s.frontier).toEqual([{ agent: 'billing', triggers: [{ from: 'parent', text: 'plan a picnic' }, { from: 'billing', text: 'billing said' }] }]);
    // a question of another agent than the cursor's is not answered by the task
    const other = { ...asked, cursor: { kind: 'wave' as const, wave: [{ agent: 'triage', triggers: [] }] } };
    const t = createRunState(support, 'INV-1', 'wf-1/3', 0);
    continueRunState(t, support, other, 'INV-1');
    expect(t.thread.at(-1)).toMatchObject({ agent: 'user', kind: 'task', text: 'INV-1' });
    expect(t.task).toBe('INV-1');
  });

  test("in an inbox context the answer reaches its asker as a human's answer note", () => {
    const support = compileYaml(SUPPORT.replace('  topology: swarm', '  topology: swarm\n  context: inbox'));
    expect(support.context).toBe('inbox');
    const asked = teamStateOf(ended(support, [{ agent: 'billing', kind: 'question', to: 'user', text: 'Which?' }], next('billing', 'billing')), support, END, 'wf-1');
    const s = createRunState(support, 'INV-1', 'wf-1/2', 0);
    continueRunState(s, support, asked, 'INV-1');
    expect(s.notes.billing).toEqual([{ kind: 'human_answer', text: 'INV-1', from: 'human' }]);
    expect(s.thread.at(-1)).toMatchObject({ kind: 'question' });
    expect(s.task).toBe('plan a picnic');
  });

  test("a selector's previous speaker; an entry cursor starts at the graph's entry", () => {
    const crew = compileYaml(CREW);
    const selected = ended(crew, [said('bob', 1)]);
    selected.round.lastWave = ['bob'];
    const s = createRunState(crew, 'go', 'wf-1/2', 0);
    continueRunState(s, crew, teamStateOf(selected, crew, END, 'wf-1'), 'go');
    expect(s.previousSpeaker).toBe('bob');
    const pipe = compileYaml(PIPE);
    const p = createRunState(pipe, 'again', 'wf-1/2', 0);
    continueRunState(p, pipe, teamStateOf(ended(pipe, [said('a', 1), said('b', 1)]), pipe, END, 'wf-1'), 'again');
    expect(p.frontier).toEqual([{ agent: 'a', triggers: [{ from: 'parent', text: 'again' }] }]);
  });

  test.each([
    ['a whole first-run thread', 3, 2],
    ['a first-run thread that dropped its oldest entries', 12, 7],
  ])("a compaction summary and the entries it covers come back to the agent's memory: %s", (_name, count, coveredSeq) => {
    const entries = Array.from({ length: count }, (_, i) => said(['alice', 'bob', 'carol'][i % 3], i + 1));
    const old = ended(panel, entries, next(['alice', 'bob', 'carol'][count % 3], 'x'));
    old.memory.alice = { own: ['alice reply 1'], summary: 'they planned a picnic', threadSeq: coveredSeq };
    const ts = teamStateOf(old, panel, END, 'wf-1');
    expect(ts.contexts.alice).toMatchObject({ summary: 'they planned a picnic', summarized: expect.any(Number) });
    // the summarized count covers the task and the kept entries up to the one the summary ends at
    expect(ts.thread[ts.contexts.alice.summarized! - 1].text).toBe(`${entries[coveredSeq - 1].agent} reply ${coveredSeq}`);
    expect(ts.contexts.bob.summarized).toBeUndefined();

    const read = readTeamState(JSON.parse(JSON.stringify(ts)));
    if (!read.ok) throw new Error(read.problems.join('; '));
    const s = createRunState(panel, 'more', 'wf-1/2', 0);
    continueRunState(s, panel, read.state, 'more');
    expect(s.memory.alice).toMatchObject({ own: ['alice reply 1'], summary: 'they planned a picnic' });
    const covered = s.thread.find((e) => e.seq === s.memory.alice.threadSeq);
    expect(covered?.text).toBe(`${entries[coveredSeq - 1].agent} reply ${coveredSeq}`);
    // what alice is shown after her summary: the entries after the covered one, and the new task
    expect(s.thread.filter((e) => e.seq > s.memory.alice.threadSeq!).map((e) => e.text)).toEqual([...entries.slice(coveredSeq).map((e) => e.text), 'more']);
    expect(s.memory.bob.threadSeq).toBeUndefined();
  });

  test('a ring continued midway does not count its lead-in lap; one continued at the ring\'s start does', () => {
    const s = createRunState(panel, 'go', 'wf-1/2', 0);
    continueRunState(s, panel, panelState(), 'go');
    expect(s.round.loopCounters).toEqual({ 'alice,bob,carol': -1 });
    const atStart = teamStateOf(ended(panel, [said('alice', 1), said('bob', 1), said('carol', 1)], next('alice', 'carol')), panel, END, 'wf-1');
    const t = createRunState(panel, 'go', 'wf-1/2', 0);
    continueRunState(t, panel, atStart, 'go');
    expect(t.round.loopCounters).toEqual({});
  });
});
