/**
 * A tool name that no worker offers ends the run at its start, `failed/fatal_error`, naming the tool
 * and listing what the worker offers, before any model call; `troupe validate --tools` reports the
 * same name located in the role file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { troupe } from '../helpers/cli';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const ROLE = `name: missing-tool
agents:
  maker: { instructions: "Make.", tools: [shout, files.write_file] }
collaboration:
  topology: pipeline
  agents: [maker]
`;

describe('a tool no worker offers', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());

  test('the run ends failed/fatal_error at its start, naming the tool and the offered ones', async () => {
    const r = await t.h.run(ROLE);
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', steps: 0 });
    expect(r.reasonText).toContain('agent maker:');
    expect(r.reasonText).toContain('files.write_file');
    expect(r.reasonText).toContain('shout');
    expect(r.reasonText).toContain('append_line');
    expect(t.h.stub.requests).toHaveLength(0);
  });

  test('troupe validate --tools locates the name in the role file', async () => {
    const role = path.join(t.dir, 'role.yaml');
    fs.writeFileSync(role, ROLE);
    const v = await troupe('validate', role, '--tools', path.join(t.dir, 'tools.yaml'));
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`${role}:3:50 agents.maker.tools[1]: tool "files.write_file" is not offered by this worker; it offers: goal, signal, append_line, record_key, shout, wait_for_cancel`);
    fs.writeFileSync(role, ROLE.replace(', files.write_file', ''));
    expect((await troupe('validate', role, '--tools', path.join(t.dir, 'tools.yaml'))).code).toBe(0);
  });
});
