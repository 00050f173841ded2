/**
 * `troupe run`, `troupe status` and `troupe dev` end by printing the run's final text: a model's
 * reply, so untrusted. On a terminal its escape sequences would clear the screen, retitle the window
 * or recolour what follows; they are taken out there, and a pipe gets the text byte for byte.
 */
import { printResult } from '../../../src/cli/run';
import type { RunResult } from '../../../src/core/ending/result';

const hostile = 'Done.\u001b[2J\u001b]0;pwned\u0007 \u001b[31mred\u001b[0m\tend';
const result = { status: 'completed', reason: 'exit', reasonText: '', usage: { agentCalls: 1, costUsd: 0, totalTokens: 10 }, rounds: 1, finalText: hostile } as unknown as RunResult;

function printed(terminal: boolean): string[] {
  const lines: string[] = [];
  printResult(result, (s) => lines.push(s), terminal, (s) => lines.push(s));
  return lines;
}

test('on a terminal the final text loses its escape sequences and control characters', () => {
  const last = printed(true).at(-1)!;
  expect(last).toBe('Done. red end');
  expect([...last].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
});

test('to a pipe the final text is printed exactly as the model wrote it', () => {
  expect(printed(false).at(-1)).toBe(hostile);
});
