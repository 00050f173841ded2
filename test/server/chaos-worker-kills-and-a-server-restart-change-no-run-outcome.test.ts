/**
 * The chaos run, shortened for `npm test` (the full one is `npm run chaos`, RELIABILITY.md): a review
 * loop, a star, a goal run, a run waiting for approval and a run that calls a side-effecting tool, on
 * a dev server persisted to a file, with model replies taking 0.1–0.8 s. Their worker is SIGKILLed and
 * restarted twice while model calls are in flight, and the server is SIGKILLed and restarted once.
 * Every run ends exactly as its undisturbed twin, no completed model call is sent again, and the
 * receipt tool's side effect happens once per call.
 */
import { reportMarkdown, runChaos } from '../chaos/driver';

describe('chaos, short', () => {
  test('2 worker SIGKILLs and a server SIGKILL under 5 live runs: every outcome as undisturbed, nothing repeated', async () => {
    const report = await runChaos({
      runs: ['review', 'star', 'goal', 'approval', 'tools'],
      faults: { worker_kill: 2, server_restart: 1 },
      latencyMs: [100, 800],
      seed: Number(process.env.TROUPE_CHAOS_SEED ?? 11),
      // within the test's 300 s, so a run that never ends fails it with the report's "did not end" section
      deadlineMs: { baseline: 60_000, chaos: 150_000 },
    });
    const summary = reportMarkdown(report);
    expect({ different: report.runs.filter((r) => !r.same), summary }).toEqual({ different: [], summary });
    expect(report.didNotEnd).toEqual([]);
    expect(report.faults.map((f) => f.kind).sort()).toEqual(['server_restart', 'worker_kill', 'worker_kill']);
    // the kills landed while model calls were in flight, so something was really interrupted
    expect(report.faults.filter((f) => f.kind === 'worker_kill').every((f) => f.requestsCut > 0)).toBe(true);
    expect(report.stepsLost).toBe(0);
    expect(report.stepsRepeated).toBe(0);
    expect(report.requestsAfterCompletion).toBe(0);
    expect(report.duplicateEffects).toBe(0);
    expect(report.effects).toEqual({ baseline: 2, chaos: 2 });
  }, 300_000);
});
