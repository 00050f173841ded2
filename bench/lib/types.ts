/**
 * Shapes shared by the benchmarks and the report: what a benchmark is given (the running stub and
 * stacks) and what it returns (tables for the markdown, target verdicts, raw numbers for the JSON).
 */
import type { Bundles, ServerVariant, Stack } from './stack';
import type { BenchStub, RecordedRequest } from './stub-client';

/** A markdown table. */
export interface Table {
  title: string;
  headers: string[];
  rows: Array<Array<string | number>>;
  note?: string;
}

/** A target (BENCHMARKS.md) next to the measured value; `met` is null when it was not measured. */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
}

/** What one benchmark returns. */
export interface BenchReport {
  id: string;
  title: string;
  method: string;
  tables: Table[];
  targets: TargetCheck[];
  /** Everything measured, for bench/results/latest.json. */
  data: Record<string, unknown>;
  durationMs?: number;
}

/** Options from the command line and environment. */
export interface BenchOptions {
  /** B1: sequential steps per run. */
  steps: number;
  /** Repetitions of each timed variant. */
  reps: number;
  /** Also run the slower extras (B2 1,000 iterations with continue-as-new, B3 200 ms and N = 128, B16 200 ms). */
  long: boolean;
  /** Also measure on dev servers with non-default dynamic config (lib/stack.ts SERVER_VARIANTS). */
  serverVariants: boolean;
  /** Only the tuned dev server besides P0, and B1 only on it (`--tuned-only`): the quick check of troupe against the floor. */
  tunedOnly: boolean;
  /** Soft time budget of the whole suite in seconds; B1 scales its repetitions to its share. */
  budgetS: number;
}

/** What every benchmark is given. */
export interface BenchContext {
  options: BenchOptions;
  stub: BenchStub;
  bundles: Bundles;
  /** The default dev server (in memory, default dynamic config). */
  p0: Stack;
  /** Dev servers with non-default dynamic config that are running for this benchmark. */
  variants: Partial<Record<ServerVariant, Stack>>;
  /** Recorded troupe requests that the baselines and the floor workflow replay. */
  requests: RecordedRequest[];
  /** Process ids to meter: server(s), this process (worker + client), stub. */
  pids: { server: number; worker: number; stub: number };
  log(line: string): void;
  /** Results of earlier benchmarks in this run (B5 reuses B2's history). */
  shared: Map<string, unknown>;
  /** Machine calibration of this run (see lib/calibrate.ts). */
  calibration: Calibration;
}

/** Machine calibration measured at the start of a run. */
export interface Calibration {
  tcpPingPongMs: { p50: number; p95: number };
  getSystemInfo: { p50: number; p95: number; serverCpuMs?: number; clientCpuMs: number };
}
