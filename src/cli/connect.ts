/** Connect for a command that addresses an existing run; connection and lookup errors exit 1. */
import { connectClient, isNotFound, runHandle, type RunHandle } from '../client';
import { err } from './io';
import { RUN_TEXT } from './run-texts';

export type Connected = Awaited<ReturnType<typeof connectClient>>;

/** Connect with the environment's settings; on failure print why and how to fix it, and return undefined. */
export async function connectOrExplain(): Promise<Connected | undefined> {
  try {
    return await connectClient();
  } catch (e) {
    err(RUN_TEXT.cannotConnect(process.env.TEMPORAL_ADDRESS || 'localhost:7233', (e as Error).message));
    return undefined;
  }
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
