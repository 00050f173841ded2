/**
 * A decision is a request/response (docs/semantics.md, "Humans in the loop"): `approve`, `reject`
 * and `answer` are Updates whose validator refuses, before anything enters the run's history, a
 * decision for a request that is not open, an answer to a gate, or a gate's decision that names no
 * digest. The sender learns why — `troupe approve` prints the refusal and exits 1, the library
 * returns it — and the history holds no Update, no signal and no decision for it. An applied one is
 * answered with what follows, and is in the history once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { approve, type RunHandle } from '../../src/client';
import { HUMAN_TEXTS } from '../../src/core/humans/texts';
import { CLI_RUN_TEXTS } from '../../src/cli/run-texts';
import { troupe } from '../helpers/cli';
import { waitForStatus } from '../helpers/runs';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const EventType = temporal.api.enums.v1.EventType;

const ROLE = `
name: refused-decisions
agents:
  ops: { instructions: "Deploy.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [ops]
approval:
  tools: [append_line]
`;

/** How many events of `type` the run's history holds. */
async function count(handle: RunHandle, type: temporal.api.enums.v1.EventType): Promise<number> {
  return ((await handle.fetchHistory()).events ?? []).filter((e) => e.eventType === type).length;
}

describe('a decision the run refuses', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());

  test('for a request not open, without the digest, or answering a gate: the caller is told why, exit 1, and the history holds none of it', async () => {
    const file = path.join(t.folder('refused'), 'deployed.txt');
    t.h.stub.script('ops', [{ toolCalls: [{ name: 'append_line', arguments: { file, line: 'v2' } }] }, { text: 'deployed' }]);
    const handle = (await t.h.start(ROLE)) as RunHandle;
    const { pending } = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    const [r1] = pending;
    const id = handle.workflowId;

    const notOpen = await troupe('approve', id, '--request', 'r5', '--by', 'ana');
    expect(notOpen.code).toBe(1);
    expect(notOpen.stdout).toBe('');
    expect(notOpen.stderr).toBe(`approve (r5) by ana to ${id}: refused: ${HUMAN_TEXTS.reasons.notOpenYet('r5', ['r1'])}\n`);

    const unknown = await troupe('reject', id, '--request', 'deploy', '--reason', 'no', '--by', 'ana');
    expect(unknown).toMatchObject({ code: 1, stderr: `reject (deploy) by ana to ${id}: refused: ${HUMAN_TEXTS.reasons.notPending('deploy', ['r1'])}\n` });

    const answered = await troupe('answer', id, 'yes', '--by', 'ana');
    expect(answered.code).toBe(1);
    expect(answered.stderr).toBe(
      `answer (r1) by ana to ${id}: refused: ${HUMAN_TEXTS.reasons.answerToGate('r1', 'tool_call')}\n${CLI_RUN_TEXTS.decideGateWith(id, 'r1')}\n`,
    );

    // a blind approve, by a program that names the request but not what it shows
    expect(await approve(handle, 'r1', { by: 'mallory' })).toEqual({
      outcome: 'refused',
      refusal: { code: 'no_digest', requestId: 'r1', reason: HUMAN_TEXTS.requests.noDigest },
      text: `refused: ${HUMAN_TEXTS.requests.noDigest}`,
    });

    const status = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(status).toMatchObject({ decisions: [], warnings: [], pending: [expect.objectContaining({ id: 'r1', digest: r1.digest })] });
    expect(await count(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toBe(0);
    expect(await count(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toBe(0);
    expect(fs.existsSync(file)).toBe(false);

    const approved = await troupe('approve', id, '--by', 'ana');
    expect(approved).toMatchObject({ code: 0, stdout: `approve (r1, ${r1.digest}) by ana to ${id}: applied to r1: ops's call of append_line runs\n`, stderr: '' });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'deployed', warnings: [] });
    expect(r.decisions).toEqual([expect.objectContaining({ requestId: 'r1', kind: 'approve', by: 'ana', digest: r1.digest })]);
    expect(fs.readFileSync(file, 'utf8')).toBe('v2\n');
    expect(await count(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toBe(1);
    expect(await count(handle, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toBe(1);

    // the run is over: a decision finds nothing to decide
    const late = await troupe('approve', id, '--request', 'r1', '--by', 'ana');
    expect(late).toMatchObject({ code: 1, stderr: `approve (r1) by ana to ${id}: refused: ${HUMAN_TEXTS.reasons.ended('COMPLETED')}\n` });
  });
});
