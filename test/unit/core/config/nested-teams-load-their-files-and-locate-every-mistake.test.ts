/**
 * Nested teams (docs/teams.md, "Nested teams"): `team: ./file.yaml` is read by the file loader,
 * resolved against the role file's folder and compiled into the graph; a missing file, a cycle,
 * teams nested too deep and mistakes inside a team file are located errors.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../../../src/config-file';
import { defineRole, RoleConfigError } from '../../../../src/core/config/define';
import { formatIssue } from '../../../../src/core/config/issues';
import { loadRoleConfig } from '../../../../src/core/config/load';
import { checkGraph } from '../../../../src/core/graph/check-graph';

const team = (name: string, body = '') => `name: ${name}
agents:
  worker:
    instructions: Do the work.
${body}collaboration:
  topology: pipeline
  agents: [worker]
`;

const parent = (ref: string, extra = '') => `name: parent
agents:
  research:
    description: Researches the question.
    team: ${ref}
${extra}  writer:
    instructions: Write.
collaboration:
  topology: pipeline
  agents: [research, writer]
`;

let dir: string;
let cwd: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-nested-'));
  cwd = process.cwd();
  process.chdir(dir);
});
afterEach(() => {
  process.chdir(cwd);
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

const errors = (file: string) => loadRoleFile(file).errors.map(formatIssue);

describe('a team file', () => {
  it('is resolved against the role file folder and compiled into the graph, with its file name', () => {
    write('roles/teams/research.yaml', team('research-team'));
    write('roles/role.yaml', parent('./teams/research.yaml'));
    const r = loadRoleFile('roles/role.yaml');
    expect(r.errors).toEqual([]);
    const agent = r.graph!.agents.research;
    expect(agent.team?.file).toBe('./teams/research.yaml');
    expect(agent.team?.graph.name).toBe('research-team');
    expect(agent.team?.graph.agents.worker.instructions).toBe('Do the work.');
    expect(agent.tools).toEqual([]);
    expect(JSON.parse(JSON.stringify(r.graph))).toEqual(r.graph);
    expect(checkGraph(r.graph)).toEqual([]);
  });

  it('that is missing is a located error at the team key', () => {
    write('role.yaml', parent('./nope.yaml'));
    expect(errors('role.yaml')).toEqual(['role.yaml:5:11 agents.research.team: cannot read the team file "./nope.yaml": no such file']);
  });

  it('with mistakes reports them located in the team file, and fails the parent', () => {
    write('research.yaml', team('research-team').replace('instructions: Do the work.', 'instructions: Do the work.\n    tols: [x]'));
    write('role.yaml', parent('./research.yaml'));
    expect(errors('role.yaml')).toEqual([
      'role.yaml:5:11 agents.research.team: the team file "./research.yaml" has 1 error (listed with their place in it)',
      'research.yaml:5:5 agents.worker.tols: unknown key "tols" (did you mean "tools"?)',
    ]);
  });

  it('that leads back to a file of its chain is a cycle, named', () => {
    write('a.yaml', parent('./b.yaml'));
    write('b.yaml', parent('./a.yaml').replace('name: parent', 'name: b'));
    expect(errors('a.yaml')).toEqual([
      'a.yaml:5:11 agents.research.team: the team file "./b.yaml" has 1 error (listed with their place in it)',
      'b.yaml:5:11 agents.research.team: team files form a cycle: a.yaml → b.yaml → a.yaml',
    ]);
  });

  it('nested more than 4 levels deep is an error naming the chain', () => {
    write('t5.yaml', team('t5'));
    for (let i = 4; i >= 0; i--) write(`t${i}.yaml`, parent(`./t${i + 1}.yaml`).replace('name: parent', `name: t${i}`));
    const found = errors('t0.yaml');
    expect(found).toContain('t4.yaml:5:11 agents.research.team: teams are nested more than 4 levels deep (t0.yaml → t1.yaml → t2.yaml → t3.yaml → t4.yaml → t5.yaml)');
    // four levels are fine
    expect(errors('t1.yaml')).toEqual([]);
  });

  it('takes no tools, handoffs or model on its agent, and needs no instructions', () => {
    write('research.yaml', team('research-team'));
    write('role.yaml', parent('./research.yaml', '    tools: [goal]\n    model: { name: x }\n    handoffs: [writer]\n'));
    expect(errors('role.yaml')).toEqual([
      'role.yaml:6:5 agents.research.tools: a team agent has no tools: its team\'s own agents have tools (remove it here)',
      "role.yaml:7:5 agents.research.model: a team agent has no model: its team's own agents have models (remove it here)",
      'role.yaml:8:5 agents.research.handoffs: a team agent has no handoffs: its team\'s own agents have handoffs (remove it here)',
    ]);
  });

  it('is an error where no file loader reads it (a role compiled from a string)', () => {
    const r = loadRoleConfig(parent('./research.yaml'), 'role.yaml');
    expect(r.errors.map(formatIssue)).toEqual([
      'role.yaml:5:11 agents.research.team: the team "./research.yaml" was not loaded: team files are read by the file loader (loadRoleFile, troupe run/validate/graph); in TypeScript give team a Role from defineRole',
    ]);
  });
});

describe('defineRole', () => {
  const child = defineRole({ name: 'research-team', agents: { worker: { instructions: 'Do the work.' } }, collaboration: { topology: 'pipeline', agents: ['worker'] } });

  it('takes a Role as a team', () => {
    const role = defineRole({
      name: 'parent',
      agents: { research: { description: 'Researches.', team: child }, writer: { instructions: 'Write.' } },
      collaboration: { topology: 'pipeline', agents: ['research', 'writer'] },
    });
    expect(role.graph.agents.research.team).toEqual({ file: 'research-team', graph: child.graph });
    expect(checkGraph(role.graph)).toEqual([]);
  });

  it('refuses a file name (it reads no files) and a chain deeper than 4', () => {
    expect(() =>
      defineRole({ name: 'p', agents: { r: { team: './x.yaml' } }, collaboration: { topology: 'pipeline', agents: ['r'] } }),
    ).toThrow(/agents\.r\.team: the team "\.\/x\.yaml" was not loaded/);
    let role = child;
    for (let i = 1; i <= 4; i++) {
      role = defineRole({ name: `l${i}`, agents: { r: { team: role } }, collaboration: { topology: 'pipeline', agents: ['r'] } });
    }
    expect(() => defineRole({ name: 'l5', agents: { r: { team: role } }, collaboration: { topology: 'pipeline', agents: ['r'] } })).toThrow(RoleConfigError);
    expect(() => defineRole({ name: 'l5', agents: { r: { team: role } }, collaboration: { topology: 'pipeline', agents: ['r'] } })).toThrow(
      /teams are nested more than 4 levels deep \(l5 → l4 → l3 → l2 → l1 → research-team\)/,
    );
  });
});

describe("the worker's graph check", () => {
  it('checks a team graph recursively and refuses more than 4 levels', () => {
    const child = defineRole({ name: 'c', agents: { w: { instructions: 'W.' } }, collaboration: { topology: 'pipeline', agents: ['w'] } }).graph;
    const broken = { ...child, edges: [...child.edges, { from: 'w', to: 'ghost', exit: false }] };
    const wrap = (g: unknown) => ({ ...child, agents: { w: { ...child.agents.w, team: { file: 'x.yaml', graph: g } } } });
    expect(checkGraph(wrap(broken))).toEqual(['graph agents.w.team.graph.edges[2].to: names "ghost", which is not an agent of the graph']);
    let deep: unknown = child;
    for (let i = 0; i < 5; i++) deep = wrap(deep);
    expect(checkGraph(deep)).toEqual(['graph agents.w.team.graph.agents.w.team.graph.agents.w.team.graph.agents.w.team.graph.agents.w.team.graph: teams are nested more than 4 levels deep']);
  });
});
