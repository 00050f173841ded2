/**
 * `troupe worker [--plugins file]`: run a worker until SIGINT/SIGTERM, then shut down
 * gracefully. A malformed endpoint allowlist or wrong connection settings (`TEMPORAL_*`, the
 * profile file) stop it before it connects; an unreachable Temporal stops it with the reason.
 */
import { endpointPolicy } from '../activities/endpoints';
import { settingsFromEnv, type TroupeSettings } from '../settings';
import { createWorker } from '../worker';
import { openToolsOrExplain } from './open-tools';
import { stringFlag, type ParsedArgs } from './args';
import { isConnectionError } from './connect';
import { err, out } from './io';
import { RUN_TEXT } from './run-texts';

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  let settings: TroupeSettings;
  try {
    endpointPolicy({ env: process.env });
    settings = settingsFromEnv();
  } catch (e) {
    err((e as Error).message);
    return 1;
  }
  const tools = await openToolsOrExplain(stringFlag(args, 'tools'));
  if (tools === false) return 1;
  let worker;
  try {
    // the settings read above, as they are: the worker reads the environment once
    worker = await createWorker({ ...settings, env: false, plugins: stringFlag(args, 'plugins'), ...(tools ? { tools } : {}) });
  } catch (e) {
    await tools?.close();
    if (!isConnectionError(e)) throw e;
    err(e.message);
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
