/**
 * Run the real CLI entry (`main`) in-process against the test server, capturing its output.
 * Each invocation captures only what it writes itself (an AsyncLocalStorage context), so a
 * `troupe run` followed in the background and `troupe approve` sent meanwhile keep apart.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { main } from '../../src/cli/main';
import { testAddress } from './temporal';

/** What one CLI invocation printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface Capture {
  stdout: string;
  stderr: string;
}

const captures = new AsyncLocalStorage<Capture>();
let hooked = 0;
let unhook: (() => void) | undefined;

/** Route process.stdout/stderr writes made inside a capture context to that capture. */
function hook(): void {
  if (hooked++ > 0) return;
  const out = process.stdout.write;
  const err = process.stderr.write;
  const route = (stream: 'stdout' | 'stderr', original: typeof process.stdout.write, target: NodeJS.WriteStream) =>
    function (this: unknown, chunk: string | Uint8Array, ...rest: unknown[]): boolean {
      const capture = captures.getStore();
      if (!capture) return (original as (...a: unknown[]) => boolean).call(target, chunk, ...rest);
      capture[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    } as typeof process.stdout.write;
  process.stdout.write = route('stdout', out, process.stdout);
  process.stderr.write = route('stderr', err, process.stderr);
  unhook = () => {
    process.stdout.write = out;
    process.stderr.write = err;
  };
}

function release(): void {
  if (--hooked === 0) unhook?.();
}

/** A CLI invocation running in the background (e.g. `troupe run` following a run). */
export interface LiveCli {
  /** Everything printed to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout contains `text` (rejects after `timeoutMs`, default 20 s, or if the command ends first). */
  waitForStdout(text: string, timeoutMs?: number): Promise<void>;
  /** The exit code and full output, once the command returns. */
  done: Promise<CliResult>;
}

/** Start `troupe <argv>` and return at once; see {@link LiveCli}. */
export function startTroupe(...argv: string[]): LiveCli {
  return launch(testAddress(), argv);
}

function launch(address: string, argv: string[]): LiveCli {
  process.env.TEMPORAL_ADDRESS = address;
  // in-process, stdout is jest's own (a terminal when run by hand): ask for the plain lines these
  // tests read; the live view is tested in a real pseudo-terminal (tmux)
  process.env.TROUPE_PROGRESS ??= 'plain';
  const capture: Capture = { stdout: '', stderr: '' };
  let finished = false;
  hook();
  const done = captures
    .run(capture, () => main(argv))
    .then((code) => ({ code, stdout: capture.stdout, stderr: capture.stderr }))
    .finally(() => {
      finished = true;
      release();
    });
  return {
    stdout: () => capture.stdout,
    stderr: () => capture.stderr,
    async waitForStdout(text, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!capture.stdout.includes(text)) {
        if (finished || Date.now() > deadline) {
          throw new Error(`troupe ${argv.join(' ')}: stdout never showed ${JSON.stringify(text)}; it printed:\n${capture.stdout}${capture.stderr}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    done,
  };
}

/** Run `troupe <argv>` to the end. */
export async function troupe(...argv: string[]): Promise<CliResult> {
  return startTroupe(...argv).done;
}

/** Run `troupe <argv>` to the end against the Temporal server at `address` (not the shared test server). */
export async function troupeAt(address: string, ...argv: string[]): Promise<CliResult> {
  return launch(address, argv).done;
}

/**
 * Run `troupe <argv>` as its own process (`node bin/troupe.js`) with exactly the environment
 * `env`, nothing inherited: what a user's shell would start.
 */
export function troupeProcess(argv: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  const bin = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...argv], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
