/**
 * A stdio server's stderr reaches the worker log at most 20 lines a second (src/tools/stderr-tail.ts):
 * a flood of 100,000 lines gives a bounded number of log lines plus lines counting the rest, the tail
 * kept for error messages still holds the last 10 lines, a quiet server loses nothing, and a real
 * server writing 1 MiB of stderr (the fixture's `chatty` tool) is drained but not copied whole.
 */
import { MCP_CONNECTION_TEXTS } from '../../../src/tools/mcp-connection';
import { STDERR_LOG_LIMIT, STDERR_TAIL, StderrTail } from '../../../src/tools/stderr-tail';
import { call, captureLogger, FIXTURE_SERVER_ARGS, openRegistry, removeDirs, writeToolsFile } from '../../fixtures/tools/helpers';

/** A tail on a clock the test moves, logging into `log` (`-N` stands for N lines not logged). */
function tailWithClock() {
  const clock = { now: 0 };
  const log: Array<string | number> = [];
  const tail = new StderrTail({ line: (l) => log.push(l), notLogged: (n) => log.push(-n) }, () => clock.now);
  return { clock, log, tail };
}

const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}`);
const lastTen = (count: number) => numbered(count - STDERR_TAIL.lines, count);

it('logs the first 20 lines of a 100,000-line burst, counts the rest on flush, and keeps the last 10 in the tail', () => {
  const { log, tail } = tailWithClock();
  tail.push(`${numbered(0, 100_000).join('\n')}\n`);
  expect(log).toEqual(numbered(0, 20));
  tail.flush();
  expect(log).toEqual([...numbered(0, 20), -99_980]);
  expect(tail.lines()).toEqual(lastTen(100_000));
  tail.flush();
  expect(log).toHaveLength(21);
});

it('logs at most 20 lines a second of a flood spread over 100 s, and counts every other line once', () => {
  const { clock, log, tail } = tailWithClock();
  for (let i = 0; i < 100_000; i += 1) {
    clock.now = i; // one line a millisecond
    tail.push(`line ${i}\n`);
  }
  tail.flush();
  const logged = log.filter((e) => typeof e === 'string');
  const counts = log.filter((e): e is number => typeof e === 'number').map((n) => -n);
  expect(logged.length).toBeLessThanOrEqual(100 * STDERR_LOG_LIMIT.linesPerSecond);
  expect(counts.length).toBeLessThanOrEqual(100);
  expect(logged.length + counts.reduce((a, b) => a + b, 0)).toBe(100_000);
  expect(tail.lines()).toEqual(lastTen(100_000));
});

it('reports the count when the next second opens, before the lines of that second', () => {
  const { clock, log, tail } = tailWithClock();
  tail.push(`${numbered(0, 25).join('\n')}\n`);
  clock.now = 999;
  tail.push('still the first second\n');
  expect(log).toEqual(numbered(0, 20));
  clock.now = 1000;
  tail.push('the next second\n');
  expect(log).toEqual([...numbered(0, 20), -6, 'the next second']);
});

it('loses nothing of a server that writes 20 lines a second', () => {
  const { clock, log, tail } = tailWithClock();
  for (let i = 0; i < 100; i += 1) {
    clock.now = i * 50;
    tail.push(`line ${i}\n`);
  }
  tail.flush();
  expect(log).toEqual(numbered(0, 100));
});

it('says how many lines were not logged, with the server name', () => {
  expect(MCP_CONNECTION_TEXTS.stderrNotLogged('files', 12_345)).toBe('[mcp files] 12,345 stderr lines not logged (more than 20 a second)');
  expect(MCP_CONNECTION_TEXTS.stderrNotLogged('files', 1)).toBe('[mcp files] 1 stderr line not logged (more than 20 a second)');
});

it('drains a real server that writes 1 MiB of stderr without copying it into the log, and counts what it left out', async () => {
  const log = captureLogger();
  const file = writeToolsFile(`mcp_servers:\n  fx:\n    command: node\n    args: ${JSON.stringify([...FIXTURE_SERVER_ARGS, 'normal'])}\n`);
  const registry = await openRegistry(file, log.logger);
  try {
    expect(await call(registry, 'fx__chatty', {})).toEqual({ kind: 'ok', text: 'done talking' });
  } finally {
    await registry.close();
    removeDirs();
  }
  const chatty = log.lines.filter((l) => l.startsWith(MCP_CONNECTION_TEXTS.stderrLine('fx', 'eee')));
  const notLogged = log.lines
    .map((l) => /^\[mcp fx\] ([\d,]+) stderr lines? not logged \(more than 20 a second\)$/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined)
    .map((n) => Number(n.replace(/,/g, '')));
  expect(chatty.length).toBeGreaterThan(0);
  expect(chatty.length).toBeLessThan(1024);
  expect(notLogged.length).toBeGreaterThan(0);
  // every stderr line is logged or counted: the 1024 of `chatty` and the few the fixture writes besides
  const stderrLogged = log.lines.filter((l) => l.startsWith(MCP_CONNECTION_TEXTS.prefix('fx')) && !l.includes(' not logged (')).length;
  expect(stderrLogged + notLogged.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1024);
});
