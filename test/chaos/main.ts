/**
 * `npm run chaos`: the full chaos run of RELIABILITY.md — 20 concurrent runs (review loops, a star,
 * goal runs, runs waiting for approval, runs that call a side-effecting tool), 5 worker SIGKILLs and
 * 1 dev-server SIGKILL at seeded random moments, model replies taking 0.2–3 s. Prints the report as
 * markdown and exits 1 when any run ended differently from its undisturbed twin or did not end by its
 * deadline (`DEADLINES_MS`; the report then says what it was waiting for), a completed call was sent
 * again, or a tool side effect happened twice.
 *
 * `--every-kind` adds one run of each kind the 20 do not have (a swarm, a nested team, a gated tool
 * call the driver approves, a swarm that hands off to the user); `--workers N` starts the chaos
 * phase with N workers, each kill taking one chosen by the seed.
 *
 *   npm run chaos [-- --seed N] [--every-kind] [--workers N]
 */
import { runChaos, reportMarkdown, SCENARIO_KINDS, type ScenarioKind } from './driver';

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
  const option = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const seed = Number(option('--seed') ?? Date.now() % 100_000);
  const everyKind = process.argv.includes('--every-kind');
  const runs = everyKind ? [...FULL, ...SCENARIO_KINDS.filter((k) => !FULL.includes(k))] : FULL;
  const report = await runChaos({
    runs,
    workers: Number(option('--workers') ?? 1),
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
