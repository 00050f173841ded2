/**
 * Model and tool text reaches a terminal through one door (src/cli/io.ts, docs/cli.md "What reaches
 * your terminal"): every line the CLI prints, to a terminal or a pipe, is printable; a `--json`
 * document is exact and holds nothing a terminal acts on; only a run's final text sent to a pipe goes
 * out as it is. The live view's frame (written to the terminal directly), the worker's log at every
 * level and the tools library's default log are printable too, with every word kept.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { err, out, outExact, outJson } from '../../../src/cli/io';
import { applyFollowEvent, newLiveModel } from '../../../src/cli/live-model';
import { renderLive } from '../../../src/cli/live-view';
import { workerLogger } from '../../../src/cli/worker-log';
import { buildStatusView } from '../../../src/core/ending/result';
import { createRunState } from '../../../src/core/state/state';
import { stderrLogger } from '../../../src/tools/log';
import { compileYaml } from '../../helpers/compile';

const OSC52 = '\u001b]52;c;cHduZWQ=\u0007';
const HOSTILE = `said${OSC52} \u001b[2J\u001b[31mred\u001b[0m \u009b32mgreen \u202eflipped\u0008!`;
const SHOWN = 'said red green flipped!';
/** Characters a terminal acts on or reorders: C0 controls but the newline, DEL, C1, bidirectional controls. */
// eslint-disable-next-line no-control-regex
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u202a-\u202e\u2066-\u2069]/;

/** What `fn` wrote to stdout and stderr. */
function written(fn: () => void): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    fn();
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  return { stdout, stderr };
}

describe('the CLI output', () => {
  test('out and err write every line printable, each word kept, one newline', () => {
    expect(written(() => out(`  ⚠ ${HOSTILE}`))).toEqual({ stdout: `  ⚠ ${SHOWN}\n`, stderr: '' });
    expect(written(() => err(`a\r\nb${OSC52}\n`))).toEqual({ stdout: '', stderr: 'a\nb\n' });
  });

  test('outJson writes exact JSON that holds nothing a terminal acts on', () => {
    const value = { summary: HOSTILE, warnings: [HOSTILE] };
    const { stdout } = written(() => outJson(value));
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout).not.toMatch(ACTED_ON);
    expect(JSON.parse(stdout)).toEqual(value);
  });

  test('outExact writes the text as it is (a final text sent to a pipe)', () => {
    expect(written(() => outExact(HOSTILE)).stdout).toBe(`${HOSTILE}\n`);
  });
});

describe('the live view', () => {
  test('a frame with a hostile warning and request is printable, each word kept, a warning on one row', () => {
    const graph = compileYaml(`
name: viewed
task: t
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);
    const status = buildStatusView(createRunState(graph, 't', 'run-1', 0), 0, []);
    const hostileStatus = {
      ...status,
      phase: 'awaiting_human' as const,
      pending: [{ id: 'r1', kind: 'handoff' as const, agent: 'writer', summary: HOSTILE, openedAt: 0 }],
    };
    let model = applyFollowEvent(newLiveModel('run-1'), { kind: 'status', status: hostileStatus, at: 0 } as never, 0);
    model = applyFollowEvent(model, { kind: 'warning', text: `agent writer: the model called ghost${OSC52}\nsecond`, at: 0 } as never, 0);
    const frame = renderLive(model, 0, { columns: 200, rows: 40 });
    expect(frame).not.toMatch(ACTED_ON);
    expect(frame).toContain(`(handoff) writer — ${SHOWN}`);
    expect(frame.split('\n')).toContain('  ⚠ agent writer: the model called ghost second');
  });
});

describe('the worker log', () => {
  /** What the worker's logger at `level` writes to stderr for an attempt failed with an endpoint's hostile error. */
  async function failedAttempt(level: 'INFO' | 'DEBUG'): Promise<string> {
    let stderr = '';
    const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
    try {
      const env = new MockActivityEnvironment({ activityType: 'callAgent', attempt: 1 }, { logger: workerLogger(level) });
      const error = ApplicationFailure.create({ message: `agent writer: HTTP 400 ${HOSTILE}` });
      await expect(env.run(async () => Promise.reject(error))).rejects.toBe(error);
    } finally {
      e.mockRestore();
    }
    return stderr;
  }

  test.each(['INFO', 'DEBUG'] as const)('at %s, an endpoint error quoted in a line is printable, each word kept', async (level) => {
    const log = await failedAttempt(level);
    expect(log).toContain(`agent writer: HTTP 400 ${SHOWN}`);
    expect(log).not.toMatch(ACTED_ON);
  });

  test("the tools library's default log is printable (a server's stderr line)", () => {
    const { stderr } = written(() => stderrLogger.warn(`[mcp files] ${HOSTILE}`));
    expect(stderr).toBe(`[mcp files] ${SHOWN}\n`);
  });
});

describe('model text in a plain status cannot print lines of its own', () => {
  test('a request summary and a warning that carry line breaks print on one line each', () => {
    const { CLI_RUN_TEXTS } = jest.requireActual<typeof import('../../../src/cli/run-texts')>('../../../src/cli/run-texts');
    const forged = 'please look\n     approve: troupe approve other-run --request r9\r\n  ⚠ all clear\u2028done';
    const lines = CLI_RUN_TEXTS.awaiting('wf', { id: 'r1', kind: 'handoff', agent: 'billing', summary: forged, since: 0 }).split('\n');
    expect(lines[0]).toBe('  ✋ waiting for a human: r1 (handoff) billing — please look approve: troupe approve other-run --request r9 ⚠ all clear done');
    // the request's own command lines follow, and no line of the summary's
    expect(lines.filter((l) => l.includes('troupe approve'))).toEqual([lines[0], '     approve: troupe approve wf --request r1 [--note "..."]']);
    expect(CLI_RUN_TEXTS.warning(forged)).toBe('  ⚠ please look approve: troupe approve other-run --request r9 ⚠ all clear done');
  });
});
