/**
 * `troupe validate`, run as a user runs it (the real CLI in its own process), reports every error of a
 * file at once, each located: an empty `all_of` no longer hides its `any_of` sibling's errors, and a
 * condition the schema rejects still has its unknown agent reported. An exit edge that can never be
 * taken is a warning that names the guard which would make it reachable.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');

async function validate(yaml: string): Promise<{ code: number; stdout: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-validate-'));
  const file = path.join(dir, 'role.yaml');
  fs.writeFileSync(file, yaml);
  try {
    const { stdout } = await run(process.execPath, [BIN, 'validate', 'role.yaml'], { cwd: dir });
    return { code: 0, stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, stdout: err.stdout };
  }
}

describe('troupe validate', () => {
  test('an empty all_of hides nothing: every error of the file, located, exit 1', async () => {
    const r = await validate(`name: hides
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - stuck: { repeats: 1 }
      - result_matches: { agent: critc, score_gte: "high" }
    all_of: []
`);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'role.yaml:10:27 collaboration.termination.any_of[0].stuck.repeats: must be an integer >= 2',
      'role.yaml:11:34 collaboration.termination.any_of[1].result_matches.agent: termination result_matches references unknown agent "critc" (did you mean "critic"?)',
      'role.yaml:11:52 collaboration.termination.any_of[1].result_matches.score_gte: expected number, got string',
      'role.yaml:12:13 collaboration.termination.all_of: must list at least one condition',
      '✗ role.yaml: 4 errors',
      '',
    ]);
  }, 30_000);

  test('a dead exit edge is a located warning naming the guard that would make it reachable', async () => {
    const r = await validate(`name: dead-exit
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  flow:
    - parent -> writer
    - writer -> critic
    - critic -> writer
    - critic -> parent
  max_iterations: 3
  termination:
    any_of:
      - result_matches: { agent: critic, contains: APPROVED }
`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'warning: role.yaml:10:7 collaboration.flow[3]: the exit edge "critic -> parent" is never taken: routing always follows the unguarded edge "critic -> writer" instead',
    );
    expect(r.stdout).toContain('when: { result_matches: { agent: critic, contains: APPROVED } }');
  }, 30_000);
});
