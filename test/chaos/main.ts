/**
 * `npm run chaos`: the full chaos run of RELIABILITY.md — 20 concurrent runs (review loops, a star,
 * goal runs, runs waiting for approval, runs that call a side-effecting tool), 5 worker SIGKILLs and
 * 1 dev-server SIGKILL at seeded random moments, model replies taking 0.2–3 s. Prints the report as
 * markdown and exits 1 when any run ended differently from its undisturbed twin or did not end by its
 * deadline (`DEADLINES_MS`; the report then says what it was waiting for), a completed call was sent
 * again, or a tool side effect happened twice.
 *
 *   npm run chaos [-- --seed N]
 */
import { runChaos, reportMarkdown, type ScenarioKind } from './driver';

const FULL: ScenarioKind[] = [
  ...Array<ScenarioKind>(10).fill('review'),
  'star',
  'star',
  'goal',
  'goal',
  'approval',
  'approval',
  'tools',
  'tools',
  'tools',
  'tools',
];

async function main(): Promise<number> {
  const i = process.argv.indexOf('--seed');
  const seed = i > 0 ? Number(process.argv[i + 1]) : Date.now() % 100_000;
  const report = await runChaos({
    runs: FULL,
    faults: { worker_kill: 5, server_restart: 1 },
    latencyMs: [200, 3000],
    seed,
    log: (line) => process.stderr.write(`[chaos] ${line}\n`),
  });
  process.stdout.write(`${reportMarkdown(report)}\n`);
  const failed = report.different > 0 || report.didNotEnd.length > 0 || report.requestsAfterCompletion > 0 || report.duplicateEffects > 0;
  if (failed) process.stdout.write(`\nFAILED:\n${JSON.stringify(report.runs.filter((r) => !r.same), null, 2)}\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
