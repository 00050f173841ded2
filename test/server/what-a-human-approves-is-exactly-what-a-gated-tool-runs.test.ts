/**
 * What a human approves is what runs (docs/security.md, docs/semantics.md "Humans in the loop"):
 *
 * - `troupe answer` to a gated call is refused by the CLI (exit 1, naming approve and reject), and an
 *   answer signal sent anyway is ignored by the workflow with a warning: the call waits on, and only
 *   `approve` runs it;
 * - arguments with a repeated key never reach a human or the tool: the model reads an error and the
 *   run goes on;
 * - a 10 KiB argument is shown whole in `status --json` and in the plain `troupe status`, and the tool
 *   receives exactly the text shown; arguments over 16 KiB are refused with an error for the model.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendSignal } from '../../src/client';
import { HUMAN_TEXTS } from '../../src/core/humans/texts';
import { TOOL_ARGUMENT_LIMITS, TOOL_ARGUMENT_TEXTS } from '../../src/core/llm/tool-arguments';
import { troupe } from '../helpers/cli';
import { waitForStatus } from '../helpers/runs';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const ROLE = `
name: gated-deploys
agents:
  ops: { instructions: "Deploy when asked.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [ops]
approval:
  tools: [append_*]
`;

describe('a gated tool call', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test('an answer does not run it: the CLI refuses, the workflow ignores a forged one; approve runs it', async () => {
    const file = path.join(t.folder('answer'), 'deployed.txt');
    t.h.stub.script('ops', [{ toolCalls: [{ name: 'append_line', arguments: { file, line: 'deploy_prod' } }] }, { text: 'done' }]);
    const handle = await t.h.start(ROLE);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human' && s.pending[0]?.kind === 'tool_call');

    const cli = await troupe('answer', handle.workflowId, 'no - do not deploy');
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`troupe approve ${handle.workflowId} --request r1`);
    expect(cli.stderr).toContain(`troupe reject ${handle.workflowId} --request r1 --reason`);

    // a client of its own sends the answer anyway
    await sendSignal(handle, 'answer', { requestId: 'r1', text: 'no - do not deploy', by: 'mallory' });
    const after = await waitForStatus(handle, (s) => s.warnings.includes(HUMAN_TEXTS.requests.answerToGate('r1', 'tool_call')));
    expect(after.phase).toBe('awaiting_human');
    expect(after.pending.map((r) => r.id)).toEqual(['r1']);
    expect(fs.existsSync(file)).toBe(false);

    expect((await troupe('approve', handle.workflowId, '--request', 'r1')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'done' });
    expect(fs.readFileSync(file, 'utf8')).toBe('deploy_prod\n');
    expect(r.decisions?.map((d) => d.kind)).toEqual(['approve']);
  });

  test('a repeated key reaches neither a human nor the tool; the model reads why', async () => {
    const file = path.join(t.folder('dupes'), 'deployed.txt');
    const sneaky = `{"file":${JSON.stringify(file)},"line":"staging","note":"${'n'.repeat(213)}","line":"PRODUCTION"}`;
    t.h.stub.script('ops', [{ toolCalls: [{ name: 'append_line', arguments: sneaky }] }, { text: 'gave up' }]);
    const r = await t.h.run(ROLE);
    expect(r).toMatchObject({ status: 'completed', finalText: 'gave up', decisions: [] });
    expect(fs.existsSync(file)).toBe(false);
    expect(t.h.stub.requestsFor('ops')[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      content: TOOL_ARGUMENT_TEXTS.invalid('append_line', [TOOL_ARGUMENT_TEXTS.duplicateKey('line', '/')]),
    });
  });

  test('10 KiB of arguments are shown whole and run as shown; over 16 KiB they are refused', async () => {
    const file = path.join(t.folder('long'), 'deployed.txt');
    const line = `${'release notes '.repeat(730)}END-OF-NOTES`; // ~10 KiB, the decisive words at the end
    const big = `${'x'.repeat(TOOL_ARGUMENT_LIMITS.approvalBytes)}`;
    t.h.stub.script('ops', [
      // spacing the model chose: what is shown and what runs is the value serialized once more
      { toolCalls: [{ name: 'append_line', arguments: `{ "file" : ${JSON.stringify(file)},\n  "line": ${JSON.stringify(line)} }` }] },
      { toolCalls: [{ name: 'append_line', arguments: { file, line: big } }] },
      { text: 'released' },
    ]);
    const handle = await t.h.start(ROLE);
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    const shown = JSON.stringify({ file, line });
    expect(waiting.pending[0].payload).toEqual({ tool: 'append_line', arguments: shown });

    const json = await troupe('status', handle.workflowId, '--json');
    expect(JSON.parse(json.stdout).pending[0].payload.arguments).toBe(shown);
    const plain = await troupe('status', handle.workflowId);
    // the plain view folds long lines and cuts nothing: every character is there, in order
    const argLines = plain.stdout.split('\n').filter((l) => l.startsWith('     │ ')).map((l) => l.slice('     │ '.length));
    expect(argLines.join('')).toBe(JSON.stringify(JSON.parse(shown), null, 2).replace(/\n/g, ''));
    expect(plain.stdout).toContain('END-OF-NOTES');

    expect((await troupe('approve', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'released' });
    expect(fs.readFileSync(file, 'utf8')).toBe(`${line}\n`);
    // the oversized call was never offered for approval and never ran
    expect(r.decisions).toHaveLength(1);
    const bytes = JSON.stringify({ file, line: big }).length;
    expect(t.h.stub.requestsFor('ops')[2].messages.at(-1)).toMatchObject({ role: 'tool', content: TOOL_ARGUMENT_TEXTS.tooLargeToApprove('append_line', bytes) });
    // the transcript keeps the approved call's arguments whole
    const transcript = JSON.parse((await troupe('transcript', handle.workflowId, '--json')).stdout) as Array<{ tools?: Array<{ arguments: string }> }>;
    expect(transcript.flatMap((s) => s.tools ?? []).map((c) => c.arguments)).toContain(shown);
  });
});
