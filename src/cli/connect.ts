/** Connect for a command that addresses an existing run; connection and lookup errors exit 1. */
import { connectClient, isNotFound, runHandle, type RunHandle } from '../client';
import { ConnectionConfigError, ConnectionFailedError } from '../connection';
import { err } from './io';
import { CLI_RUN_TEXTS } from './run-texts';

type Connected = Awaited<ReturnType<typeof connectClient>>;

/**
 * Connect with the environment's settings (`TEMPORAL_*`, the profile file); on failure print the
 * one line that says what failed and what to check, and return undefined.
 */
export async function connectOrExplain(): Promise<Connected | undefined> {
  quietIpServerNameWarning();
  try {
    return await connectClient();
  } catch (e) {
    if (!isConnectionError(e)) throw e;
    err(e.message);
    return undefined;
  }
}

let quieted = false;

/**
 * The client's gRPC library gives TLS the address's host as the server name even when it is an IP
 * address (`TEMPORAL_ADDRESS=10.0.0.5:7233` with TLS), and Node prints a deprecation warning
 * (DEP0123) about it on every such command. The certificate is still checked against the IP; the
 * warning says nothing the user can act on, so the CLI drops that one warning.
 */
function quietIpServerNameWarning(): void {
  if (quieted) return;
  quieted = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const options = rest[0];
    const code = typeof options === 'object' && options !== null ? (options as { code?: string }).code : rest[1];
    if (code === 'DEP0123') return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}

/** Whether `e` is a wrong setting or an unreachable Temporal, whose message is meant for the user as is. */
export function isConnectionError(e: unknown): e is ConnectionConfigError | ConnectionFailedError {
  return e instanceof ConnectionConfigError || e instanceof ConnectionFailedError;
}

/**
 * Run `body` with the handle of run `id`. Connection failures and unknown ids print a clear
 * message and give exit code 1; other errors propagate.
 */
export async function withRun(id: string, body: (handle: RunHandle) => Promise<number>): Promise<number> {
  const conn = await connectOrExplain();
  if (!conn) return 1;
  try {
    return await body(runHandle(conn.client, id));
  } catch (e) {
    if (isNotFound(e)) {
      err(CLI_RUN_TEXTS.notFound(id));
      return 1;
    }
    throw e;
  } finally {
    await conn.close();
  }
}
