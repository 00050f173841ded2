/**
 * A real pseudo-terminal for CLI tests, through tmux: run a command in a detached session of a
 * given size, read the screen as a person would see it (`capture-pane`), and wait on what it shows.
 * Each terminal has its own tmux server (socket), so tests never see each other's sessions.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Whether tmux is installed (the live-view tests skip, saying so, where it is not). */
export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V']).status === 0;
}

/** A command running in a tmux pane. */
export interface Terminal {
  /** The screen as plain text, one string per row (trailing blank rows removed). */
  screen(): string[];
  /** Resolves with the screen once `pred` holds for it (rejects after `timeoutMs`, default 30 s). */
  waitFor(pred: (screen: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]>;
  /** A tmux command on this terminal's server, its output (`list-buffers`, `display -p '#{pane_title}'`, …). */
  tmux(...args: string[]): string;
  /** Kill the session and its tmux server. */
  close(): void;
}

/** Quote one word for the shell tmux runs the command with. */
const quote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

/**
 * Run `argv` with `env` (and without the variables in `unset`) in a `columns`×`rows` terminal.
 * When it exits the pane stays, showing `[exit N]`. `config` lines are the tmux server's
 * configuration, read before the command starts (`set -s set-clipboard on`: a program's OSC 52
 * makes a tmux buffer, so a test can see that the clipboard was written).
 */
export function openTerminal(
  argv: string[],
  opts: { env?: Record<string, string>; unset?: string[]; cwd?: string; columns?: number; rows?: number; config?: string[] } = {},
): Terminal {
  const socket = `troupe-test-${randomUUID().slice(0, 8)}`;
  const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${quote(v)}`);
  const unset = (opts.unset ?? []).flatMap((k) => ['-u', k]);
  const command = `${['env', ...unset, ...env, ...argv.map(quote)].join(' ')}; echo "[exit $?]"; sleep 600`;
  const configFile = path.join(os.tmpdir(), `${socket}.conf`);
  fs.writeFileSync(configFile, (opts.config ?? []).map((l) => `${l}\n`).join(''));
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', configFile, ...args], { encoding: 'utf8' });
  tmux('new-session', '-d', '-s', 'cli', '-x', String(opts.columns ?? 120), '-y', String(opts.rows ?? 40), ...(opts.cwd ? ['-c', opts.cwd] : []), command);
  const screen = () => {
    const rows = tmux('capture-pane', '-p', '-t', 'cli').split('\n');
    while (rows.length > 0 && rows[rows.length - 1].trim() === '') rows.pop();
    return rows;
  };
  return {
    screen,
    async waitFor(pred, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = screen();
        if (pred(s)) return s;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; it shows:\n${s.join('\n')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    tmux,
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
      fs.rmSync(configFile, { force: true });
    },
  };
}
