/**
 * `troupe chat` holds the live view while it asks a request at its prompt (docs/cli.md, "troupe
 * chat"): holding erases the frame, events that come meanwhile draw nothing (they still count),
 * and releasing draws the frame again below what was written, erasing nothing above it.
 */
import { EventEmitter } from 'node:events';
import { buildStatusView } from '../../../src/core/ending/result';
import { createRunState } from '../../../src/core/state/state';
import { createFollowView } from '../../../src/cli/follow-view';
import { compileYaml } from '../../helpers/compile';

const graph = compileYaml(`
name: held
task: t
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

/** A terminal that keeps what is written to it. */
class Screen extends EventEmitter {
  columns = 100;
  rows = 30;
  written: string[] = [];
  write(chunk: string) {
    this.written.push(chunk);
    return true;
  }
}

const ERASE_LINE = '\u001b[2K';
const tick = () => new Promise((r) => setImmediate(r));

test('held, the frame is erased and nothing is drawn; released, it is drawn again below', async () => {
  const screen = new Screen();
  const view = createFollowView('run-1', 'live', { out: () => undefined, err: () => undefined, stream: screen as unknown as NodeJS.WriteStream, now: () => 0 });
  const status = (steps: number) => {
    const s = buildStatusView(createRunState(graph, 't', 'run-1', 0), 0, ['writer']);
    s.steps = steps;
    return s;
  };
  view.onEvent({ kind: 'status', status: status(1), at: 0 });
  await tick();
  expect(screen.written.at(-1)).toContain('1 step');

  view.hold();
  // the erase of the frame's lines, and no frame
  expect(screen.written.at(-1)).toContain(ERASE_LINE);
  expect(screen.written.at(-1)).not.toContain('troupe · run-1');
  const atHold = screen.written.length;
  view.onEvent({ kind: 'status', status: status(2), at: 0 });
  await tick();
  expect(screen.written.length).toBe(atHold);

  view.release();
  const drawn = screen.written.slice(atHold).join('');
  expect(drawn).toContain('2 steps');
  expect(drawn).not.toContain(ERASE_LINE);
  view.close();
});
