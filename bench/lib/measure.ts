/**
 * One timed execution of a workload: resets the stub, meters CPU of every watched process, runs the
 * workload, and returns wall time, the per-step intervals seen at the stub, and CPU per process.
 */
import { meterCpu, type ProcessRoles } from './proc';
import { intervals } from './stats';
import type { BenchStub } from './stub-client';

/** What one timed execution measured. */
export interface Measured {
  wallMs: number;
  /** Requests the stub received. */
  requests: number;
  /** Time between consecutive request arrivals at the stub (one per sequential step). */
  stepMs: number[];
  /** CPU ms per watched process. */
  cpuMs: Record<string, number | undefined>;
}

/** Runs `work` once under the meters. */
export async function measure(stub: BenchStub, roles: ProcessRoles, work: () => Promise<unknown>): Promise<Measured> {
  await stub.reset();
  const cpu = meterCpu(roles);
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  const cpuMs = cpu.stop();
  const arrivals = await stub.arrivals();
  return { wallMs, requests: arrivals.length, stepMs: intervals(arrivals), cpuMs };
}

/** Sum of the CPU ms of the given roles (undefined when one could not be read). */
export function cpuOf(m: Measured, roles: string[]): number | undefined {
  let total = 0;
  for (const r of roles) {
    const v = m.cpuMs[r];
    if (v === undefined) return undefined;
    total += v;
  }
  return total;
}

/** A fixed amount of JS work, timed: how fast this box runs our code right now (contention). */
export function spinCalibrationMs(): number {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < 20_000_000; i++) x = (x + i * 7) % 1_000_003;
  const ms = performance.now() - t0;
  return x < 0 ? -1 : ms;
}
