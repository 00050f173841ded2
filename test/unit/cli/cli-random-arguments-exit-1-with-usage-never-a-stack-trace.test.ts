/**
 * Random command lines (docs/semantics.md, "Bounds on hostile input"): whatever the words, `troupe` answers
 * with an exit code and words, never a stack trace, and never a control character of the command line
 * echoed back. Commands that would reach a Temporal server are
 * only given command lines that are wrong by construction (an unknown flag), so nothing here needs one.
 */
import * as fs from 'node:fs';
import fc from 'fast-check';
import { main } from '../../../src/cli/main';
import { COMMANDS } from '../../../src/cli/commands';
import { printable } from '../../../src/core/text/printable';
import { fuzzRuns, leaksIn } from '../../helpers/fuzz';

/** Commands that only read files: any command line may run them. */
const LOCAL = ['validate', 'graph', 'help'];
const LIVE = Object.keys(COMMANDS).filter((c) => !LOCAL.includes(c));
/** Names an object lookup could mistake for commands. */
const TRAPS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', ''];

const knownFlags = [...new Set(Object.values(COMMANDS).flatMap((c) => Object.keys(c.flags)))];

const token = fc.oneof(
  fc.constantFrom(...knownFlags.map((f) => `--${f}`), '--help', '-h', '--', '-', '--=', '---x', '-xyz', '--json=1', '--constructor', '--__proto__'),
  fc.tuple(fc.constantFrom(...knownFlags, 'zz', '__proto__'), fc.string({ maxLength: 8 })).map(([f, v]) => `--${f}=${v}`),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(...TRAPS),
);

async function runCli(argv: string[]): Promise<{ code: number; output: string }> {
  const chunks: string[] = [];
  const write = (chunk: string | Uint8Array) => (chunks.push(String(chunk)), true);
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(write), jest.spyOn(process.stderr, 'write').mockImplementation(write)];
  try {
    return { code: await main(argv), output: chunks.join('') };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

/** No word of the command line names a file that exists (so `--plugins` cannot load one). */
const noFiles = (argv: string[]) => argv.every((a) => a === '' || !fs.existsSync(a.replace(/^--?[^=]*=/, '')));

describe('random command lines', () => {
  test('wrong by construction (unknown command, or an unknown flag): exit 1 with a usage line or the help pointer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(COMMANDS), ...TRAPS, 'rnu', 'valdiate'),
        fc.array(token, { maxLength: 6 }),
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 6 }).map((s) => `--zz-${s.replace(/[=\s]/g, '_')}`),
        async (command, rest, unknown) => {
          const argv = [command, unknown, ...rest];
          fc.pre(noFiles(argv));
          const { code, output } = await runCli(argv);
          expect(code).toBe(1);
          expect(leaksIn(output)).toEqual([]);
          expect(output).toBe(printable(output));
          if (Object.prototype.hasOwnProperty.call(COMMANDS, command)) {
            // the flag as the terminal may show it: every line the CLI prints is printable
            expect(output).toContain(`troupe ${command}: unknown flag ${printable(unknown.split('=')[0])}`);
            expect(output).toContain(`usage: ${COMMANDS[command].usage}`);
          } else {
            expect(output).toContain('Run "troupe help" for the list of commands.');
          }
        },
      ),
      fuzzRuns(300),
    );
  });

  test('anything given to the local commands, or as a command name: exit 0 or 1, words, never a stack trace', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LOCAL, ...TRAPS, '--help', '-h'), fc.array(token, { maxLength: 6 }), async (command, rest) => {
        const argv = [command, ...rest];
        fc.pre(noFiles(argv));
        const { code, output } = await runCli(argv);
        expect([0, 1]).toContain(code);
        expect(output.trim()).not.toBe('');
        expect(leaksIn(output)).toEqual([]);
        if (code === 0) expect(output).toMatch(/usage: troupe/);
      }),
      fuzzRuns(300),
    );
  });

  test('a command line of the live commands with too many words is a usage error, before anything connects', async () => {
    for (const command of LIVE) {
      const spec = COMMANDS[command];
      const argv = [command, ...Array.from({ length: spec.positionals.max + 1 }, (_, i) => `word${i}`)];
      const { code, output } = await runCli(argv);
      expect(code).toBe(1);
      expect(output).toContain(`usage: ${spec.usage}`);
    }
  });
});
