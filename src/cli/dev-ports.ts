/**
 * The ports `troupe dev` listens on: the Temporal frontend (`--port`, default 7233) and its Web UI
 * (`--ui-port`, default 8233). A port given by flag must be free, or the command stops with one line
 * naming the port and the flag; a default that is taken gives way to a free port.
 */
import * as net from 'node:net';
import { freePort } from '../dev/temporal-server';
import { stringFlag, type ParsedArgs } from './args';
import { CLI_RUN_TEXTS } from './run-texts';

/** The port each flag defaults to (Temporal's own defaults for `temporal server start-dev`). */
const DEV_PORTS = { port: 7233, 'ui-port': 8233 } as const;

/** A `troupe dev` port flag. */
type DevPortFlag = keyof typeof DEV_PORTS;

/** The ports to start the dev server with; `port` undefined lets it take a free one. */
interface DevPorts {
  port?: number;
  uiPort: number;
}

/** Why nothing can listen on 127.0.0.1:`port` now (`EADDRINUSE`, `EACCES`, …), or undefined when it can. */
function portProblem(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(undefined)));
  });
}

function parsePort(value: string): number | undefined {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  return n >= 1 && n <= 65535 ? n : undefined;
}

/**
 * The ports of `--port` and `--ui-port`, each checked free, and the defaults of those not given
 * (`defaults` for tests); or the one-line error when a flag's value is not a port, or its port is
 * taken or both flags name the same one.
 */
export async function devPorts(args: ParsedArgs, defaults: Readonly<Record<DevPortFlag, number>> = DEV_PORTS): Promise<DevPorts | { error: string }> {
  const given: Partial<Record<DevPortFlag, number>> = {};
  for (const flag of ['port', 'ui-port'] as const) {
    const raw = stringFlag(args, flag);
    if (raw === undefined) continue;
    const port = parsePort(raw);
    if (port === undefined) return { error: CLI_RUN_TEXTS.devBadPort(flag, raw) };
    const problem = await portProblem(port);
    if (problem) return { error: CLI_RUN_TEXTS.devPortUnavailable(port, flag, problem) };
    given[flag] = port;
  }
  if (given.port !== undefined && given.port === given['ui-port']) return { error: CLI_RUN_TEXTS.devSamePort(given.port) };
  // a default is used when it is free and not the port the other flag gave
  const usable = async (flag: DevPortFlag, other?: number) =>
    defaults[flag] !== other && (await portProblem(defaults[flag])) === undefined ? defaults[flag] : undefined;
  return {
    port: given.port ?? (await usable('port', given['ui-port'])),
    uiPort: given['ui-port'] ?? (await usable('ui-port', given.port)) ?? (await freePort()),
  };
}
