/** Connect for a command that addresses an existing run; connection and lookup errors exit 1. */
import { connectClient, isNotFound, runHandle, type RunHandle } from '../client';
import { ConnectionConfigError, ConnectionFailedError } from '../connection';
import { err } from './io';
import { RUN_TEXT } from './run-texts';

export type Connected = Awaited<ReturnType<typeof connectClient>>;

/**
 * Connect with the environment's settings (`TEMPORAL_*`, the profile file); on failure print the
 * one line that says what failed and what to check, and return undefined.
 */
export async function connectOrExplain(): Promise<Connected | undefined> {
  try {
    return await connectClient();
  } catch (e) {
    if (!isConnectionError(e)) throw e;
    err(e.message);
    return undefined;
  }
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
      err(RUN_TEXT.notFound(id));
      return 1;
    }
    throw e;
  } finally {
    await conn.close();
  }
}
