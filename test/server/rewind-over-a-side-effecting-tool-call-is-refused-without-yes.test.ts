/**
 * A rewind is not a transaction over tool side effects (docs/cli.md, "troupe rewind"): the
 * worker tool calls after the rewind point would run again (replay) or stay done (fork), so
 * `troupe rewind` lists them (step, agent, tool) and refuses without `--yes`, nothing reset; with
 * `--yes` it rewinds and the tool runs again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunResult } from '../../src/core/ending/result';
import { troupe } from '../helpers/cli';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';
import { uniqueWorkflowId } from '../helpers/temporal';

const ROLE = `
name: logbook
agents:
  planner: { instructions: "Plan." }
  logger: { instructions: "Log.", tools: [append_line] }
collaboration:
  topology: round-robin
  agents: [planner, logger]
  max_iterations: 5
  termination:
    any_of:
      - max_messages: 3
`;

describe('troupe rewind over tool side effects', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());

  test('a call of append_line after step 1 is listed and refused without --yes; with --yes the steps run again and so does the tool', async () => {
    const file = path.join(t.folder('logbook'), 'log.txt');
    const script = () => t.h.stub.script('logger', [{ toolCalls: [{ name: 'append_line', arguments: { file, line: 'booked' } }] }, { text: 'logged' }]);
    script();
    const first = await t.h.start(ROLE, { task: 'book a table', workflowId: uniqueWorkflowId('logbook') });
    expect(await first.result()).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 3 });
    expect(fs.readFileSync(file, 'utf8')).toBe('booked\n');

    const refused = await troupe('rewind', first.workflowId, '--to-step', '1');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim()).toBe(
      ['cannot rewind: tool calls after the rewind point would run again (rerun with --yes to rewind anyway):', '  step 2: logger called append_line'].join('\n'),
    );
    const forkRefused = await troupe('rewind', first.workflowId, '--to-step', '1', '--message', 'again');
    expect(forkRefused.code).toBe(1);
    expect(forkRefused.stderr).toContain('tool calls after the rewind point ran and are not undone by a fork (rerun with --yes to fork anyway):\n  step 2: logger called append_line');
    expect((await t.h.client.workflow.getHandle(first.workflowId).describe()).runId).toBe(first.firstExecutionRunId);

    script();
    const done = await troupe('rewind', first.workflowId, '--to-step', '1', '--yes');
    expect(done.code).toBe(0);
    const again = (await t.h.client.workflow.getHandle(first.workflowId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 3 });
    expect((await t.h.client.workflow.getHandle(first.workflowId).describe()).runId).not.toBe(first.firstExecutionRunId);
    expect(fs.readFileSync(file, 'utf8')).toBe('booked\nbooked\n');
  });
});
