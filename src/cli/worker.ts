/**
 * `troupe worker [--plugins file]`: run a worker until SIGINT/SIGTERM, then shut down
 * gracefully. A malformed endpoint allowlist in the environment stops it before it connects.
 */
import { endpointPolicy } from '../activities/endpoints';
import { settingsFromEnv } from '../settings';
import { createWorker } from '../worker';
import { openToolsOrExplain } from './open-tools';
import { stringFlag, type ParsedArgs } from './args';
import { err, out } from './io';
import { RUN_TEXT } from './run-texts';

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const settings = settingsFromEnv();
  try {
    endpointPolicy({ env: process.env });
  } catch (e) {
    err((e as Error).message);
    return 1;
  }
  const tools = await openToolsOrExplain(stringFlag(args, 'tools'));
  if (tools === false) return 1;
  let worker;
  try {
    worker = await createWorker({ plugins: stringFlag(args, 'plugins'), ...(tools ? { tools } : {}) });
  } catch (e) {
    await tools?.close();
    err(RUN_TEXT.cannotConnect(settings.address, (e as Error).message));
    return 1;
  }
  const stop = () => {
    err(RUN_TEXT.workerStopping);
    worker.shutdown();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  out(RUN_TEXT.workerStarted(settings.address, settings.namespace, settings.taskQueue));
  try {
    await worker.run();
  } finally {
    await tools?.close();
  }
  return 0;
}
