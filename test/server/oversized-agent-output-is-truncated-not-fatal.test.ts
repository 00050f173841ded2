import { TURN_LIMITS, TURN_TEXTS } from '../../src/core/llm/next-step';
import { TEXT_CAP_BYTES } from '../../src/core/state/state';
import { startHarness, type Harness } from '../helpers/runs';

const MB3 = 3 * 1024 * 1024;
/** 3 MiB of mixed ASCII and 3-byte CJK text (so cuts must respect UTF-8 boundaries). */
const HUGE = 'tide 潮汐 '.repeat(MB3 / 12);

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('an oversized agent output', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('a 3 MB writer reply does not fail the run: cut with the marker, a warning, and the critic still runs', async () => {
    expect(bytes(HUGE)).toBe(MB3);
    h.stub.script('writer', [{ text: HUGE }]);
    h.stub.script('critic', [{ text: 'too long, but fine' }]);
    const r = await h.run(`
name: huge
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: pipeline
  agents: [writer, critic]
`);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'too long, but fine' });

    const kept = r.results.writer.text;
    expect(bytes(kept)).toBeLessThanOrEqual(TEXT_CAP_BYTES);
    const m = /\n\[troupe: truncated (\d+) bytes\]$/.exec(kept);
    expect(m).not.toBeNull();
    const prefix = kept.slice(0, m!.index);
    expect(HUGE.startsWith(prefix)).toBe(true);
    // the marker counts every byte dropped from the original 3 MB, across both cuts
    expect(Number(m![1]) + bytes(prefix)).toBe(MB3);

    const warning = r.warnings.find((w) => w.startsWith('agent writer: output cut'));
    const dropped = Number(/\((\d+) bytes dropped\)/.exec(warning ?? '')?.[1]);
    expect(warning).toBe(TURN_TEXTS.truncated('writer', dropped, TURN_LIMITS.maxTextBytes));
    expect(MB3 - dropped).toBeLessThanOrEqual(TURN_LIMITS.maxTextBytes);

    const critic = h.stub.requestsFor('critic')[0];
    expect(critic.prompt).toContain(`[troupe: truncated ${m![1]} bytes]`);
    expect(bytes(critic.prompt)).toBeLessThan(TEXT_CAP_BYTES + 4096);
  });
});
