/**
 * No blind approvals (issue 30, finding 5; docs/semantics.md, "Humans in the loop"): a raw `approve`
 * signal for `r1` sent right after start — any SDK or the Temporal CLI can send one — was kept and
 * applied when `r1` opened, and `delete_all({"target":"production-db"})` ran with nobody having seen
 * the arguments. A gate now opens with the digest of what it shows, and a decision must name it: the
 * blind approve is refused when r1 opens and recorded as refused (status, transcript, the RunResult's
 * decisions, a warning), an approve naming another digest is refused too, and the call waits until
 * `troupe approve`, which sends the digest it was shown, runs it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DecisionRecord } from '../../src/core/humans/requests';
import { gateDigest } from '../../src/core/humans/digest';
import { HUMAN_TEXTS } from '../../src/core/humans/texts';
import type { TranscriptStep } from '../../src/core/state/state';
import { transcriptQuery } from '../../src/contract';
import { troupe } from '../helpers/cli';
import { waitForStatus } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const ROLE = `
name: blind-approval
agents:
  ops: { instructions: "Clean up.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [ops]
approval:
  tools: [append_line]
`;

describe('a decision on a gate names what it decides', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test('a blind approve sent before r1 opens is refused, one naming another digest too; the call runs only after troupe approve', async () => {
    const file = path.join(t.folder('blind'), 'production-db.txt');
    const args = { file, line: 'delete all' };
    const gate = stubGate();
    t.h.stub.script('ops', [gate.hold({ toolCalls: [{ name: 'append_line', arguments: args }] }), { text: 'cleaned up' }]);
    const handle = await t.h.start(ROLE);
    // right after start, while the reply that opens r1 is still on its way: mallory approves it blind
    await t.h.stub.waitForRequests(1, 'ops');
    await handle.signal('approve', { requestId: 'r1', by: 'mallory' });
    gate.open();

    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human' && s.decisions.length === 1);
    const [r1] = waiting.pending;
    expect(r1).toMatchObject({ id: 'r1', kind: 'tool_call', agent: 'ops', payload: { tool: 'append_line', arguments: JSON.stringify(args) } });
    expect(r1.digest).toBe(gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'append_line', text: JSON.stringify(args) }));
    const blind = { requestId: 'r1', request: 'tool_call', agent: 'ops', kind: 'approve', by: 'mallory', refused: HUMAN_TEXTS.requests.noDigest };
    expect(waiting.decisions).toEqual([{ ...blind, at: expect.any(String) }]);
    expect(waiting.warnings).toContain(HUMAN_TEXTS.requests.refused('approve', 'r1', 'tool_call', HUMAN_TEXTS.requests.noDigest));
    expect(fs.existsSync(file)).toBe(false);

    // an approve naming the digest of other arguments is refused as well
    const other = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'append_line', text: '{"file":"x","line":"y"}' });
    await handle.signal('approve', { requestId: 'r1', by: 'eve', digest: other });
    const twice = await waitForStatus(handle, (s) => s.decisions.length === 2);
    expect(twice.phase).toBe('awaiting_human');
    expect(twice.decisions[1]).toMatchObject({ by: 'eve', digest: other, refused: HUMAN_TEXTS.requests.otherDigest(other) });
    expect(fs.existsSync(file)).toBe(false);
    const shown = await troupe('status', handle.workflowId);
    expect(shown.stdout).toContain(`     digest:  ${r1.digest}`);
    expect(shown.stdout).toContain(`  ⊘ r1 (tool_call) ops approve by mallory at ${twice.decisions[0].at} refused: ${HUMAN_TEXTS.requests.noDigest}`);

    // a human who saw it: troupe approve sends the digest the status showed
    const approved = await troupe('approve', handle.workflowId, '--by', 'ana');
    expect(approved).toMatchObject({ code: 0, stdout: `approve (r1, ${r1.digest}) by ana to ${handle.workflowId}: applied to r1: ops's call of append_line runs\n` });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'cleaned up' });
    expect(fs.readFileSync(file, 'utf8')).toBe('delete all\n');
    expect(r.usage.toolCalls?.total).toBe(1);
    expect(r.decisions.map((d: DecisionRecord) => [d.by, d.kind, d.refused === undefined ? 'applied' : 'refused'])).toEqual([
      ['mallory', 'approve', 'refused'],
      ['eve', 'approve', 'refused'],
      ['ana', 'approve', 'applied'],
    ]);
    expect(r.decisions[2]).toMatchObject({ digest: r1.digest });
    const steps: TranscriptStep[] = await handle.query(transcriptQuery);
    expect(steps.filter((s) => s.kind === 'decision').map((s) => s.decision?.refused !== undefined)).toEqual([true, true, false]);
  });

  test('a reject naming no digest is refused too; troupe reject sends it and the model gets the reason', async () => {
    const file = path.join(t.folder('reject'), 'production-db.txt');
    const call = { name: 'append_line', arguments: { file, line: 'drop' } };
    t.h.stub.script('ops', [{ toolCalls: [call] }, { text: 'left it alone' }]);
    const handle = await t.h.start(ROLE);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    await handle.signal('reject', { requestId: 'r1', reason: 'no', by: 'mallory' });
    const refused = await waitForStatus(handle, (s) => s.decisions.length === 1);
    expect(refused.decisions[0]).toMatchObject({ kind: 'reject', by: 'mallory', refused: HUMAN_TEXTS.requests.noDigest });
    expect(refused.pending.map((p) => p.id)).toEqual(['r1']);
    expect((await troupe('reject', handle.workflowId, '--reason', 'not production', '--by', 'ana')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'left it alone' });
    expect(fs.existsSync(file)).toBe(false);
    expect(t.h.stub.requestsFor('ops')[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'Rejected by a human: not production' });
  });
});
