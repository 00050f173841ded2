/**
 * Per-process CPU time and memory from /proc (Linux), so each benchmark can say how many CPU-ms
 * the Temporal server, the worker process and the stub LLM spent per step. Elsewhere it reports
 * nothing rather than guessing.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

let clockTicks: number | undefined;

/** Clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU ms of a process (all its threads), or undefined when /proc is unreadable. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / ticksPerSecond();
  } catch {
    return undefined;
  }
}

/** Resident and peak-resident memory of a process in MiB, from /proc/<pid>/status. */
export function memoryMiB(pid: number): { rss?: number; peak?: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) / 1024 : undefined;
    };
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return {};
  }
}

/** The processes a benchmark watches, by role. */
export type ProcessRoles = Record<string, number>;

/** CPU ms each watched process spent between `start()` and `stop()`. */
export interface CpuMeter {
  stop(): Record<string, number | undefined>;
}

/** Starts metering the CPU time of each process in `roles`. */
export function meterCpu(roles: ProcessRoles): CpuMeter {
  const before = Object.fromEntries(Object.entries(roles).map(([role, pid]) => [role, cpuMs(pid)]));
  return {
    stop() {
      return Object.fromEntries(
        Object.entries(roles).map(([role, pid]) => {
          const a = before[role];
          const b = cpuMs(pid);
          return [role, a === undefined || b === undefined ? undefined : b - a];
        }),
      );
    },
  };
}

/** User + system CPU ms of each thread of a process, by thread id, with the thread's name (`comm`); empty when /proc is unreadable. */
export function threadCpuMs(pid: number): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond() });
    } catch {
      // the thread ended
    }
  }
  return out;
}

/**
 * CPU ms a process spent between two {@link threadCpuMs} readings, by kind of thread: `main` (the
 * process's first thread); `platform` (the `node` threads before the first named one: those Node
 * starts with the process and does not name, V8's garbage collection and compiler threads and
 * libuv's pool);
 * `worker threads` (the `node` threads started later: a Temporal worker's workflow threads); the rest
 * by name (`tokio-runtime-w`: the SDK's native core).
 */
export function threadCpuDelta(pid: number, before: Map<number, { name: string; ms: number }>, after: Map<number, { name: string; ms: number }>): Record<string, number> {
  const delta: Record<string, number> = {};
  const tids = [...after.keys()].sort((a, b) => a - b);
  const firstNamed = tids.find((tid) => after.get(tid)!.name !== 'node') ?? Infinity;
  for (const tid of tids) {
    const t = after.get(tid)!;
    const ms = t.ms - (before.get(tid)?.ms ?? 0);
    const kind = tid === pid ? 'main' : t.name !== 'node' ? t.name : tid < firstNamed ? 'platform' : 'worker threads';
    delta[kind] = (delta[kind] ?? 0) + ms;
  }
  return delta;
}
