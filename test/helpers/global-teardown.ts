/** Jest globalTeardown of the "server" project: removes the shared workflow bundle and stops the dev server that global-setup started. */
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DevServer } from '../../src/dev/temporal-server';
import { GLOBAL_SERVER_KEY } from './global-setup';
import { SHARED_BUNDLE_VARIABLE } from './temporal';

/** Removes the shared workflow bundle and stops the shared dev server (unless the run used an external TEMPORAL_TEST_ADDRESS). */
export default async function globalTeardown(): Promise<void> {
  const bundle = process.env[SHARED_BUNDLE_VARIABLE];
  if (bundle) await rm(dirname(bundle), { recursive: true, force: true });
  const server = (globalThis as Record<string, unknown>)[GLOBAL_SERVER_KEY] as DevServer | undefined;
  if (!server) return;
  await server.stop();
  delete (globalThis as Record<string, unknown>)[GLOBAL_SERVER_KEY];
  process.stdout.write(`troupe tests: Temporal dev server at ${server.address} stopped\n`);
}
