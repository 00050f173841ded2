/**
 * `troupe dev --port P --ui-port P`: a port given by flag that is taken stops the command with one
 * line naming the port and the flag, before any server starts; a value that is no port is a usage
 * error; a default port (7233, 8233) that is taken gives way to a free one.
 */
import { execFile } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../../src/cli/main';
import { devPorts } from '../../../src/cli/dev-ports';
import { CLI_RUN_TEXTS } from '../../../src/cli/run-texts';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** A port held by a listener on 127.0.0.1 until `close`. */
async function holdPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

test('troupe dev --port with a taken port exits 1 with one line naming the port and --port (a real process)', async () => {
  const held = await holdPort();
  try {
    const run = promisify(execFile)(process.execPath, ['bin/troupe.js', 'dev', '--port', String(held.port), '--exit'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      timeout: 60_000,
    });
    await expect(run).rejects.toMatchObject({ code: 1, stdout: '', stderr: `${CLI_RUN_TEXTS.devPortUnavailable(held.port, 'port', 'EADDRINUSE')}\n` });
  } finally {
    await held.close();
  }
  expect(CLI_RUN_TEXTS.devPortUnavailable(held.port, 'port', 'EADDRINUSE')).toBe(
    `port ${held.port} (--port) is already in use; pass a free one with --port P, or leave --port out to take a free port`,
  );
}, 90_000);

test('--ui-port with a taken port, a value that is no port, and one port for both are one-line errors', async () => {
  const held = await holdPort();
  try {
    expect(await cli('dev', '--ui-port', String(held.port), '--exit')).toEqual({
      code: 1,
      stdout: '',
      stderr: `port ${held.port} (--ui-port) is already in use; pass a free one with --ui-port P, or leave --ui-port out to take a free port\n`,
    });
  } finally {
    await held.close();
  }
  for (const bad of ['http', '0', '70000', '-1']) {
    expect(await cli('dev', `--port=${bad}`, '--exit')).toEqual({ code: 1, stdout: '', stderr: `--port must be a port number from 1 to 65535, not "${bad}"\n` });
  }
  const free = await holdPort();
  await free.close();
  expect(await cli('dev', '--port', String(free.port), '--ui-port', String(free.port), '--exit')).toEqual({
    code: 1,
    stdout: '',
    stderr: `--port and --ui-port both name port ${free.port}; the Temporal server and its Web UI need a port each\n`,
  });
});

test('a default port that is taken gives way: the server takes a free port, the Web UI another', async () => {
  const [grpc, ui] = [await holdPort(), await holdPort()];
  try {
    const ports = await devPorts({ positionals: [], flags: {} }, { port: grpc.port, 'ui-port': ui.port });
    expect(ports).toEqual({ port: undefined, uiPort: expect.any(Number) });
    expect([grpc.port, ui.port]).not.toContain((ports as { uiPort: number }).uiPort);
  } finally {
    await grpc.close();
    await ui.close();
  }
  // free defaults are used as they are; a flag's port wins over the default it names
  const [a, b] = [await holdPort(), await holdPort()];
  await a.close();
  await b.close();
  expect(await devPorts({ positionals: [], flags: {} }, { port: a.port, 'ui-port': b.port })).toEqual({ port: a.port, uiPort: b.port });
  const chosen = await devPorts({ positionals: [], flags: { port: String(b.port) } }, { port: a.port, 'ui-port': b.port });
  expect(chosen).toEqual({ port: b.port, uiPort: expect.any(Number) });
  expect((chosen as { uiPort: number }).uiPort).not.toBe(b.port);
});
