/**
 * The setup a result was measured on (machine, load, versions, git revision), recorded with every
 * run because numbers from a shared 2-core box mean little without it.
 */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

function pkgVersion(name: string): string {
  try {
    return (require(path.join(ROOT, 'node_modules', name, 'package.json')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Machine and software versions. */
export interface Environment {
  date: string;
  host: { cpus: number; model: string; memGiB: number; kernel: string; platform: string };
  node: string;
  packages: Record<string, string>;
  temporalCli: string;
  git: { sha?: string; dirtyFiles?: number };
}

/** Collects the environment; `temporalCli` is the dev server's `temporal --version`. */
export function environment(temporalCli: string): Environment {
  const cpus = os.cpus();
  const porcelain = git(['status', '--porcelain']);
  return {
    date: new Date().toISOString(),
    host: {
      cpus: cpus.length,
      model: cpus[0]?.model ?? 'unknown',
      memGiB: Math.round(os.totalmem() / 1024 ** 3),
      kernel: os.release(),
      platform: `${os.platform()} ${os.arch()}`,
    },
    node: process.version,
    packages: Object.fromEntries(
      ['@temporalio/worker', '@temporalio/client', '@temporalio/workflow', 'openai', 'tsx', 'typescript'].map((p) => [p, pkgVersion(p)]),
    ),
    temporalCli,
    git: { sha: git(['rev-parse', 'HEAD']), dirtyFiles: porcelain === undefined ? undefined : porcelain.split('\n').filter(Boolean).length },
  };
}

/** The 1-minute load average and the number of runnable tasks (contention from other processes). */
export function load(): { load1: number; load5: number } {
  const [load1, load5] = os.loadavg();
  return { load1: Math.round(load1 * 100) / 100, load5: Math.round(load5 * 100) / 100 };
}
