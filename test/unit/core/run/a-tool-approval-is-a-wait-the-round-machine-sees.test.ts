/**
 * A gated tool call's approval as a state of the round machine (`core/run/tool-approval.ts`): its
 * request opens through the one opener (`askHuman`, `core/humans/decisions.ts`) with the arguments exactly as the tool
 * will get them, the wave's phase lists it while it waits, and the decision is taken when the wait
 * ends. A call whose arguments cannot be shown whole is not offered for approval at all.
 */
import { takeDecision } from '../../../../src/core/humans/decisions';
import { pendingRequests } from '../../../../src/core/humans/requests';
import { HUMAN_TEXTS } from '../../../../src/core/humans/texts';
import { TOOL_ARGUMENT_TEXTS } from '../../../../src/core/llm/tool-arguments';
import { TOOL_CALL_TEXTS } from '../../../../src/core/llm/tool-calls';
import { brief } from '../../../../src/core/text/format';
import type { Machine } from '../../../../src/core/run/step';
import { closeToolApproval, openToolApproval, type GatedCall } from '../../../../src/core/run/tool-approval';
import { compileYaml } from '../../../helpers/compile';
import { machineFor } from '../../fixtures/drive-machine';

const ROLE = `
name: gated
agents:
  writer: { instructions: "Write." }
collaboration: { topology: pipeline, agents: [writer] }
`;

const write = (args: string): GatedCall => ({ agent: 'writer', tool: 'files.write_file', name: 'files__write_file', arguments: args, asText: false });

function inWave(): Machine {
  const m = machineFor(compileYaml(ROLE));
  m.phase = { at: 'wave', kind: 'agent' };
  return m;
}

describe('a tool approval', () => {
  it('opens one request with the arguments as the tool will get them, and the wave waits on it until it is decided', () => {
    const m = inWave();
    const gate = openToolApproval(m, write('{ "path": "a.txt",  "content": "hi" }'), 1_000);
    expect(gate).toEqual({ ok: true, requestId: expect.any(String), arguments: '{"path":"a.txt","content":"hi"}' });
    if (!gate.ok) throw new Error('not offered');
    expect(m.phase).toEqual({ at: 'wave', kind: 'agent', waiting: [gate.requestId] });
    const [pending] = pendingRequests(m.state);
    expect(pending).toMatchObject({
      id: gate.requestId,
      kind: 'tool_call',
      agent: 'writer',
      summary: HUMAN_TEXTS.asks.toolCall('writer', 'files.write_file', '{"path":"a.txt","content":"hi"}'),
      payload: { tool: 'files.write_file', arguments: '{"path":"a.txt","content":"hi"}' },
      digest: expect.any(String),
    });

    const second = openToolApproval(m, write('{"path":"b.txt"}'), 1_001);
    if (!second.ok) throw new Error('not offered');
    expect(m.phase).toMatchObject({ waiting: [gate.requestId, second.requestId] });

    takeDecision(m.state, gate.requestId, { kind: 'reject', text: 'not that file', at: 2_000, digest: pending.digest });
    expect(closeToolApproval(m, gate.requestId)).toEqual({ kind: 'reject', reason: 'not that file' });
    expect(m.phase).toMatchObject({ waiting: [second.requestId] });
    // a wait that ended undecided (`stop`, or the wave cancelled): the call does not run
    expect(closeToolApproval(m, second.requestId)).toEqual({ kind: 'stopped' });
    expect(m.phase).toEqual({ at: 'wave', kind: 'agent' });
  });

  it('an approved call comes back approved, and its request leaves the book', () => {
    const m = inWave();
    const gate = openToolApproval(m, write('{"path":"a.txt"}'), 1_000);
    if (!gate.ok) throw new Error('not offered');
    const [pending] = pendingRequests(m.state);
    takeDecision(m.state, gate.requestId, { kind: 'approve', at: 2_000, digest: pending.digest });
    expect(closeToolApproval(m, gate.requestId)).toEqual({ kind: 'approve' });
    expect(m.state.requests).toEqual([]);
  });

  it('a call whose arguments cannot be read strictly is not offered for approval: no request, a warning, an answer for the model', () => {
    const m = inWave();
    const gate = openToolApproval(m, write('{"path":"a","path":"b"}'), 1_000);
    expect(gate.ok).toBe(false);
    if (gate.ok) throw new Error('offered');
    expect(gate.answer.startsWith(TOOL_ARGUMENT_TEXTS.invalid('files__write_file', []))).toBe(true);
    expect(pendingRequests(m.state)).toEqual([]);
    expect(m.phase).toEqual({ at: 'wave', kind: 'agent' });
    expect(m.state.warnings.at(-1)).toBe(TOOL_CALL_TEXTS.notOffered('writer', 'files.write_file', brief(gate.answer)));
  });
});
