/** Jest globalTeardown of the "server" project: stops the dev server that global-setup started. */
import type { DevServer } from '../../src/dev/temporal-server';
import { GLOBAL_SERVER_KEY } from './global-setup';

/** Stops the shared dev server (a no-op when the run used an external TEMPORAL_TEST_ADDRESS). */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>)[GLOBAL_SERVER_KEY] as DevServer | undefined;
  if (!server) return;
  await server.stop();
  delete (globalThis as Record<string, unknown>)[GLOBAL_SERVER_KEY];
  process.stdout.write(`troupe tests: Temporal dev server at ${server.address} stopped\n`);
}
