import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRoleFile } from '../../../src/config-file';
import { formatIssue } from '../../../src/core/config/issues';
import { loadToolsFile } from '../../../src/tools';

const dir = path.join(__dirname, '..', '..', '..', 'examples');
const MINE = ['review-loop.yaml', 'pipeline.yaml', 'star.yaml', 'custom-flow.yaml', 'hybrid.yaml', 'round-robin.yaml', 'triage-swarm.yaml', 'support-chat.yaml', 'selector-team.yaml', 'research-team.yaml', 'nested-team.yaml'];
const load = (f: string) => loadRoleFile(path.join(dir, f));

describe('examples/', () => {
  it.each(MINE)('%s validates with no errors and no warnings', (f) => {
    const r = load(f);
    expect([...r.errors, ...r.warnings].map(formatIssue)).toEqual([]);
    expect(r.graph).toBeDefined();
  });

  it('every role file in the folder validates without errors (tools.yaml is a tools file)', () => {
    const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && f !== 'tools.yaml');
    expect(files).toEqual(expect.arrayContaining([...MINE, 'research-with-tools.yaml']));
    for (const f of files) expect({ f, errors: load(f).errors.map(formatIssue) }).toEqual({ f, errors: [] });
  });

  it('tools.yaml is a valid tools file and research-with-tools uses only what it offers', () => {
    const tools = loadToolsFile(path.join(dir, 'tools.yaml'), {});
    expect(tools.errors.map(formatIssue)).toEqual([]);
    expect(tools.tools!.servers.map((s) => s.name)).toEqual(['files']);
    expect(tools.tools!.modules).toHaveLength(1);
    const agent = load('research-with-tools.yaml').graph!.agents.researcher;
    expect(agent.tools).toEqual(['files.list_allowed_directories', 'files.write_file', 'files.read_text_file', 'word_count']);
  });

  it('review-loop is the demo: writer/critic, critic score_gte 85, a max_iterations cap, and asks for score: N', () => {
    const g = load('review-loop.yaml').graph!;
    expect(g.topology).toBe('review-loop');
    expect(g.nodes).toEqual(['writer', 'critic']);
    expect(g.termination.anyOf).toEqual([{ kind: 'result_matches', agent: 'critic', scoreGte: 85 }]);
    expect(g.maxIterations).toBeGreaterThan(0);
    expect(g.agents.critic.instructions).toMatch(/score: N/);
  });

  it('pipeline has 3 agents in a chain and star has 3 parallel specialists', () => {
    expect(load('pipeline.yaml').graph?.nodes).toHaveLength(3);
    const star = load('star.yaml').graph!;
    expect(star.entry).toHaveLength(3);
    expect(star.edges.filter((e) => e.exit)).toHaveLength(3);
  });

  it('custom-flow starts scanner and parser from parent and joins them at the analyzer', () => {
    const g = load('custom-flow.yaml').graph!;
    expect(g.entry).toEqual(['scanner', 'parser']);
    expect(g.edges.filter((e) => e.to === 'analyzer').map((e) => e.from)).toEqual(['scanner', 'parser']);
    expect(g.edges.filter((e) => e.exit).map((e) => e.from)).toEqual(['reporter']);
    expect(g.topology).toBeUndefined();
  });

  it('hybrid overrides a pipeline edge in place and adds a guarded loop', () => {
    const g = load('hybrid.yaml').graph!;
    expect(g.topology).toBe('pipeline');
    expect(g.edges[2]).toEqual({ from: 'coder', to: 'tester', label: 'fix and tests', exit: false });
    expect(g.edges[4]).toMatchObject({ from: 'tester', to: 'coder', when: { kind: 'result_matches', agent: 'tester' } });
    expect(g.loopGroups.map((l) => l.id)).toEqual(['coder,tester']);
  });

  it('round-robin is AutoGen\'s team of three ending after 10 messages, its cap derived from max_messages', () => {
    const g = load('round-robin.yaml').graph!;
    expect(g.topology).toBe('round-robin');
    expect(g.context).toBe('thread');
    expect(g.termination).toEqual({ anyOf: [{ kind: 'max_messages', n: 10 }], allOf: [] });
    expect(g.maxIterations).toBe(4);
  });

  it('triage-swarm is a swarm with no edges but handoffs: triage first, a user handoff, ending on a specialist\'s TERMINATE or 8 messages', () => {
    const g = load('triage-swarm.yaml').graph!;
    expect(g.topology).toBe('swarm');
    expect(g.entry).toEqual(['triage']);
    expect(g.edges.filter((e) => e.from !== 'parent').every((e) => e.handoff)).toBe(true);
    expect(g.agents.triage.handoffs).toEqual(['billing', 'tech', 'user']);
    expect(g.agents.billing.handoffs).toContain('user');
    expect(g.termination.anyOf).toEqual([
      { kind: 'text_mention', text: 'TERMINATE', sources: ['billing', 'tech'] },
      { kind: 'max_messages', n: 8 },
    ]);
    expect(g.maxTurns).toBe(8);
  });

  it('support-chat is the triage swarm ended by a transfer to the user, so the next chat line goes on as its answer', () => {
    const g = load('support-chat.yaml').graph!;
    const swarm = load('triage-swarm.yaml').graph!;
    expect(g.topology).toBe('swarm');
    expect(Object.keys(g.agents)).toEqual(Object.keys(swarm.agents));
    expect(g.termination.anyOf[0]).toEqual({ kind: 'handoff', target: 'user' });
    expect(g.maxTurns).toBe(6);
  });

  it('selector-team is AutoGen\'s SelectorGroupChat of planner, coder and reviewer: max_turns 9, ends when the reviewer approves', () => {
    const g = load('selector-team.yaml').graph!;
    expect(g.topology).toBe('selector');
    expect(g.nodes).toEqual(['planner', 'coder', 'reviewer']);
    expect(g.maxTurns).toBe(9);
    expect(g.selector).toMatchObject({ allowRepeatedSpeaker: false, maxAttempts: 3 });
    expect(g.termination.anyOf).toEqual([{ kind: 'text_mention', text: 'APPROVE', sources: ['reviewer'] }]);
    for (const n of g.nodes) expect(g.agents[n].description).toBeTruthy();
  });

  it('nested-team runs research-team.yaml as its research agent', () => {
    const g = load('nested-team.yaml').graph!;
    expect(g.agents.research.team?.file).toBe('./research-team.yaml');
    expect(g.agents.research.team?.graph).toEqual(load('research-team.yaml').graph);
    expect(g.nodes).toEqual(['research', 'writer']);
  });

  it('examples/README.md has a row for each example', () => {
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    for (const f of MINE) expect(readme).toContain(`[${f}](${f})`);
  });
});
