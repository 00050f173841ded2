/**
 * Issue 30, found by hand: `team: /abs/path/team.yaml` was joined onto the role's folder (the error
 * named a path with the folder twice), and an agent named `user` was shadowed by `handoffs: [user]`
 * with only a "not reachable" warning. An absolute team path is read as written (a relative one
 * from the naming file's folder), and `user` is a reserved agent name: a located error.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRoleFile } from '../../../../src/config-file';
import { defineRole, RoleConfigError } from '../../../../src/core/config/define';
import { formatIssue } from '../../../../src/core/config/issues';
import { loadRoleConfig } from '../../../../src/core/config/load';

const team = (name: string, extra = '') => `name: ${name}
agents:
  worker:
    instructions: Do the work.
${extra}collaboration:
  topology: pipeline
  agents: [worker]
`;

const parent = (ref: string) => `name: parent
agents:
  research:
    description: Researches the question.
    team: ${ref}
  writer:
    instructions: Write.
collaboration:
  topology: pipeline
  agents: [research, writer]
`;

let dir: string;
let cwd: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-abs-team-'));
  cwd = process.cwd();
  process.chdir(dir);
});
afterEach(() => {
  process.chdir(cwd);
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(file: string, text: string): string {
  const at = path.join(dir, file);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.writeFileSync(at, text);
  return at;
}

describe('an absolute team path', () => {
  it('loads the file it names, from a role in another folder', () => {
    const abs = write('shared/teams/research.yaml', team('research-team'));
    write('roles/role.yaml', parent(abs));
    const r = loadRoleFile('roles/role.yaml');
    expect(r.errors.map(formatIssue)).toEqual([]);
    expect(r.graph?.agents.research.team).toMatchObject({ file: abs, graph: { name: 'research-team' } });
  });

  it("that cannot be read names the path once, as written", () => {
    const abs = path.join(dir, 'nowhere', 'research.yaml');
    write('roles/role.yaml', parent(abs));
    expect(loadRoleFile('roles/role.yaml').errors.map(formatIssue)).toEqual([
      `roles/role.yaml:5:11 agents.research.team: cannot read the team file "${abs}": no such file`,
    ]);
  });

  it('whose file has mistakes locates them at the path as written', () => {
    const abs = write('shared/research.yaml', team('research-team', '    tols: [x]\n'));
    write('roles/role.yaml', parent(abs));
    expect(loadRoleFile('roles/role.yaml').errors.map(formatIssue)).toEqual([
      `roles/role.yaml:5:11 agents.research.team: the team file "${abs}" has 1 error (listed with their place in it)`,
      `${abs}:5:5 agents.worker.tols: unknown key "tols" (did you mean "tools"?)`,
    ]);
  });

  it('and a relative one still resolves against the role file, from any working folder', () => {
    write('roles/teams/research.yaml', team('research-team'));
    write('roles/role.yaml', parent('./teams/research.yaml'));
    process.chdir(os.tmpdir());
    const r = loadRoleFile(path.join(dir, 'roles/role.yaml'));
    expect(r.errors).toEqual([]);
    expect(r.graph?.agents.research.team?.file).toBe('./teams/research.yaml');
  });
});

describe('an agent named user', () => {
  const role = `name: desk
agents:
  triage:
    instructions: Route.
    handoffs: [user]
  user:
    instructions: I am not the human.
    handoffs: [triage]
collaboration:
  topology: swarm
  agents: [triage, user]
  max_turns: 4
`;

  it('is a located error: user is the human a transfer to user reaches', () => {
    expect(loadRoleConfig(role, 'role.yaml').errors.map(formatIssue)).toEqual([
      'role.yaml:6:3 agents.user: "user" is the human a transfer to user reaches (handoffs: [user]) and cannot be an agent name',
    ]);
  });

  it('is refused by defineRole as well', () => {
    const define = () =>
      defineRole({ name: 'desk', agents: { user: { instructions: 'Me.' }, a: { instructions: 'A.' } }, collaboration: { topology: 'pipeline', agents: ['a', 'user'] } });
    expect(define).toThrow(RoleConfigError);
    expect(define).toThrow(/agents\.user: "user" is the human a transfer to user reaches \(handoffs: \[user\]\) and cannot be an agent name/);
  });
});
