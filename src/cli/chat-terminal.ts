/**
 * The terminal of `troupe chat` (docs/cli.md, "troupe chat"): one readline over the whole chat that
 * shows a prompt only when the chat asks, and is silent while a run is followed, so keys typed then
 * never draw over the live view. Ctrl+C goes to the chat's handler, whether it comes as a key (a
 * terminal in raw mode) or as a signal (a pipe); Ctrl+D or the end of a pipe is the end of input.
 * From a pipe, lines are read one per prompt and written after it.
 */
import { EventEmitter } from 'node:events';
import { createInterface, type Interface } from 'node:readline';
import { out } from './io';

/** What the terminal gave: a line, the end of input (Ctrl+D), or Ctrl+C while asking. */
export type Typed = { kind: 'line'; text: string } | { kind: 'eof' } | { kind: 'interrupt' };

/**
 * The terminal readline writes to: stdout while the chat asks, nothing while a run is followed, so
 * keys typed then never draw over the live view (a line finished then is dropped, not taken later
 * for an answer nobody saw asked).
 */
class Echo extends EventEmitter {
  muted = true;
  constructor(readonly target: NodeJS.WriteStream) {
    super();
    target.on('resize', () => this.emit('resize'));
  }
  get columns(): number | undefined {
    return this.target.columns;
  }
  write(data: string, done?: () => void): boolean {
    if (!this.muted) this.target.write(data);
    done?.();
    return true;
  }
}

/** One readline over the whole chat: `ask` shows a prompt and resolves with what was typed. */
export class ChatTerminal {
  private readonly echo = new Echo(process.stdout);
  private readonly rl: Interface;
  /** Lines that came while nothing was asked (a pipe's). */
  private readonly queued: string[] = [];
  private waiting: ((t: Typed) => void) | undefined;
  private ended = false;
  private readonly terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);

  constructor(private readonly onInterrupt: () => void) {
    this.rl = createInterface({ input: process.stdin, output: this.echo as unknown as NodeJS.WritableStream, terminal: this.terminal, historySize: 100 });
    this.rl.on('line', (text) => {
      if (this.waiting) this.give({ kind: 'line', text });
      else if (!this.terminal) this.queued.push(text);
    });
    this.rl.on('close', () => {
      this.ended = true;
      // Ctrl+D leaves the cursor on the prompt's row
      if (this.waiting && this.terminal) this.echo.target.write('\n');
      this.give({ kind: 'eof' });
    });
    // Ctrl+C reaches readline as a key on a terminal, and the process as a signal otherwise
    this.rl.on('SIGINT', onInterrupt);
    process.on('SIGINT', onInterrupt);
  }

  /** Show `prompt` and resolve with the line typed, the end of input, or Ctrl+C. */
  async ask(prompt: string): Promise<Typed> {
    const typed = await this.next(prompt);
    // a pipe's line is not echoed: it is written after its prompt, so the chat reads as on a terminal
    if (!this.terminal && typed.kind === 'line') out(`${prompt}${typed.text}`);
    return typed;
  }

  private next(prompt: string): Promise<Typed> {
    const line = this.queued.shift();
    if (line !== undefined) return Promise.resolve({ kind: 'line', text: line });
    if (this.ended) return Promise.resolve({ kind: 'eof' });
    return new Promise((resolve) => {
      this.waiting = resolve;
      if (!this.terminal) return;
      this.echo.muted = false;
      this.rl.setPrompt(prompt);
      this.rl.prompt();
    });
  }

  /** Ctrl+C while asking: the question is left, and the half-typed line dropped. */
  interruptAsk(): void {
    if (!this.waiting) return;
    this.echo.muted = true;
    if (this.terminal) {
      this.rl.write(null, { ctrl: true, name: 'e' });
      this.rl.write(null, { ctrl: true, name: 'u' });
      this.echo.target.write('\n');
    }
    this.give({ kind: 'interrupt' });
  }

  private give(t: Typed): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.echo.muted = true;
    waiting?.(t);
  }

  /** Give the terminal back (its raw mode off) and stop taking Ctrl+C. */
  close(): void {
    process.off('SIGINT', this.onInterrupt);
    this.rl.close();
  }
}
