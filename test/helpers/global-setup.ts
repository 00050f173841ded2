/**
 * Jest globalSetup of the "server" project: starts ONE real Temporal dev server (default dynamic
 * config, no UI) for the whole run and publishes its address as TEMPORAL_TEST_ADDRESS, which the
 * test files inherit. Tests that need a special server config start their own with
 * `startDedicatedServer` from ./temporal.
 */
import { FAST_LOCAL_DYNAMIC_CONFIG, startDevServer } from '../../src/dev/temporal-server';

/** Key under which the server handle is passed to global-teardown (same process). */
export const GLOBAL_SERVER_KEY = '__TROUPE_TEST_TEMPORAL_SERVER__';

/** Starts the shared dev server unless TEMPORAL_TEST_ADDRESS already points at one. */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEMPORAL_TEST_ADDRESS) {
    process.stdout.write(
      `\ntroupe tests: using the Temporal server at ${process.env.TEMPORAL_TEST_ADDRESS} (TEMPORAL_TEST_ADDRESS)\n`,
    );
    return;
  }
  const server = await startDevServer({
    dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG },
    headless: true,
    cliLog: (line) => process.stderr.write(`${line}\n`),
    log: process.env.TROUPE_TEST_SERVER_LOG ? (line) => process.stderr.write(`[temporal] ${line}\n`) : undefined,
  });
  (globalThis as Record<string, unknown>)[GLOBAL_SERVER_KEY] = server;
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  process.env.TEMPORAL_TEST_NAMESPACE = server.namespace;
  process.env.TEMPORAL_TEST_CLI = server.cliPath;
  process.stdout.write(
    `\ntroupe tests: Temporal dev server ${server.version} started at ${server.address} (pid ${server.pid}, ${server.cliPath})\n`,
  );
}
